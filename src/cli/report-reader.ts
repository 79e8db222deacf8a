import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { CliError } from './cli-error.js';
import { streamJsonArray } from './readers/json-array-stream.js';
import type { RunFiles } from './report.js';
import type { CreatedUser } from './results.js';

// report.ts writes `created` as the last key at two spaces' indent; a raw newline cannot occur inside a JSON
// string, so the first place this text occurs is that key.
const CREATED_KEY = '\n  "created": [';
const CHECK_CHUNK = 10_000;

/**
 * A migration report read without holding its `created` list, which lists every user the run created: the
 * fields before it are parsed at once, the list is streamed.
 */
export class ReportReader {
  readonly coreId: string;
  readonly coreUrl: string | undefined;
  /** The run never wrote its end (killed): its `created` list is empty, its side files say what it sent. */
  readonly running: boolean;
  readonly progress: RunFiles | undefined;
  /** Tenants the run created for the source's organizations: undo removes them once empty. */
  readonly tenantsCreated: string[];

  constructor(readonly path: string) {
    let head: {
      coreId?: unknown;
      coreUrl?: unknown;
      dryRun?: unknown;
      created?: unknown;
      running?: unknown;
      progress?: unknown;
      tenants?: unknown;
    };
    if (!fs.existsSync(path)) {
      throw new CliError(`${path} does not exist: give the report the run wrote (<export>.migrate-report.json, or its --report)`);
    }
    try {
      head = JSON.parse(readHead(path)) as typeof head;
    } catch {
      throw new CliError(`${path} is not a report written by identity-core migrate`);
    }
    if (head === null || typeof head !== 'object') throw new CliError(`${path} is not a report written by identity-core migrate`);
    if (head.dryRun === true) throw new CliError(`${path} is the report of a dry run, which created no users`);
    if (typeof head.coreId !== 'string' || !Array.isArray(head.created)) throw this.noCreatedList();
    this.coreId = head.coreId;
    this.coreUrl = typeof head.coreUrl === 'string' ? head.coreUrl : undefined;
    this.running = head.running === true;
    this.progress = isRunFiles(head.progress) ? head.progress : undefined;
    this.tenantsCreated = (Array.isArray(head.tenants) ? (head.tenants as { tenantId?: unknown; createdByRun?: unknown }[]) : [])
      .filter((tenant) => tenant?.createdByRun === true && typeof tenant.tenantId === 'string')
      .map((tenant) => tenant.tenantId as string);
    if (this.running && this.progress === undefined) throw this.noCreatedList();
  }

  /** Reads the whole list once, so that a bad entry is found before anything is done with the others. */
  async check(): Promise<void> {
    for await (const chunk of this.created(CHECK_CHUNK)) chunk.length = 0;
  }

  /** The created users, `size` at a time; refuses a list with an entry that has no core id. */
  async *created(size: number): AsyncGenerator<CreatedUser[]> {
    let chunk: CreatedUser[] = [];
    try {
      for await (const entry of streamJsonArray(textChunks(this.path), 'created')) {
        if (typeof (entry as CreatedUser | null)?.userId !== 'string') throw this.noCreatedList();
        chunk.push(entry as CreatedUser);
        if (chunk.length >= size) {
          yield chunk;
          chunk = [];
        }
      }
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError(`${this.path} is not a report written by identity-core migrate`);
    }
    if (chunk.length > 0) yield chunk;
  }

  private noCreatedList(): CliError {
    return new CliError(`${this.path} is not a report written by identity-core migrate (this version): it lists no created users`);
  }
}

/** The report up to its `created` key, closed as a whole object; the whole file when it has no such key. */
function readHead(path: string): string {
  const descriptor = fs.openSync(path, 'r');
  try {
    const decoder = new StringDecoder('utf8');
    const buffer = Buffer.alloc(64 * 1024);
    let text = '';
    for (;;) {
      const read = fs.readSync(descriptor, buffer, 0, buffer.length, null);
      const searchFrom = Math.max(0, text.length - CREATED_KEY.length);
      text += read === 0 ? decoder.end() : decoder.write(buffer.subarray(0, read));
      const key = text.indexOf(CREATED_KEY, searchFrom);
      if (key !== -1) return `${text.slice(0, key)}\n  "created": []}`;
      if (read === 0) return text;
    }
  } finally {
    fs.closeSync(descriptor);
  }
}

async function* textChunks(path: string): AsyncGenerator<string> {
  yield* fs.createReadStream(path, { highWaterMark: 1024 * 1024 }).setEncoding('utf8') as AsyncIterable<string>;
}

function isRunFiles(value: unknown): value is RunFiles {
  if (value === null || typeof value !== 'object') return false;
  const files = value as Record<string, unknown>;
  return ['runStartedAt', 'stateFile', 'sentLog', 'intentLog', 'createdLog'].every((key) => typeof files[key] === 'string');
}
