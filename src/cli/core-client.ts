import type { CoreMaterial, CoreUser, LookupBody } from './account-keys.js';
import type { BulkImportUser } from './bulk-user.js';
import { CliError } from './cli-error.js';
import { API_KEY_VARIABLE, CORE_URL_VARIABLE } from './connection.js';
import { KeptBytes } from './kept-bytes.js';
import { httpRequest } from './http-request.js';

export interface CoreReply {
  status: number;
  text: string;
  json: unknown;
}

export interface CoreClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Attempts for network errors and 5xx answers before giving up. */
  attempts?: number;
  retryDelayMs?: number;
  requestTimeoutMs?: number;
  /** Stops retry waits early when the run is interrupted. */
  signal?: AbortSignal;
}

/** A queue row of GET /bulk-import/users (contract §10.4). */
export interface QueueRow {
  id: string;
  status: string;
  externalUserId?: string;
  errorMessage?: string;
  loginMethods?: { recipeId?: string; email?: string; phoneNumber?: string; thirdPartyId?: string; thirdPartyUserId?: string }[];
}

/** On success, the id each user will have in the core (the queue row id), in request order. */
/** `allImported`: the core imported every user before answering (a core that queues, or one some failed in, leaves it false). */
export type EnqueueResult =
  | { ok: true; userIds: string[]; allImported: boolean }
  | { ok: false; invalid: { index: number; errors: string[] }[] }
  /** The request is larger than the core takes in one (its bulk_import_body_limit_bytes): answered 413. */
  | { ok: false; tooLarge: true }
  /** The core failed on the request (500), the same way each time it was retried. */
  | { ok: false; serverError: string };

/** One answer of POST /bulk-import/users/complete, in request order. */
export type CompletionAnswer =
  | { status: 'COMPLETED'; userId: string; added: string[] }
  | { status: 'UNCHANGED'; userId: string }
  | { status: 'CONFLICT'; userId?: string; reason: string }
  | { status: 'NOT_FOUND' };

export type CompleteResult = { ok: true; answers: CompletionAnswer[] } | { ok: false; invalid: { index: number; errors: string[] }[] };

const SIGNER_KEY_MISSING = 'idp_password_hashing_signer_key';

/** A request body already turned into JSON, as bytes. */
export class SerializedBody {
  constructor(readonly json: Buffer) {}
}

// Users per JSON.stringify in bulkImportBody: the text of each part stays far below V8's large-object size (128 KiB).
const USERS_PER_PART = 64;
// A first guess of a user's JSON; the body grows past it when needed.
const BYTES_PER_USER = 400;
const COMMA = 0x2c;

/** `{"users":[…]}` for POST /bulk-import/users, written a part of the users at a time (kept-bytes.ts says why). */
export function bulkImportBody(users: readonly BulkImportUser[]): KeptBytes {
  const body = new KeptBytes(users.length * BYTES_PER_USER);
  body.append('{"users":');
  for (let start = 0; start === 0 || start < users.length; start += USERS_PER_PART) {
    const partStart = body.length;
    body.append(JSON.stringify(users.slice(start, start + USERS_PER_PART)));
    // "[a,b]" and "[c,d]" make "[a,b,c,d]": a later part's opening bracket becomes a comma, and each closing
    // bracket but the last is dropped.
    if (start > 0) body.setByte(partStart, COMMA);
    if (start + USERS_PER_PART < users.length) body.truncate(1);
  }
  body.append('}');
  return body;
}

/** The core answered 404 for a route: an older core, or a route not written yet. */
export class RouteMissingError extends CliError {}

export class CoreClient {
  private readonly baseUrl: string;

  constructor(private readonly options: CoreClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** Proves the core answers and accepts the API key before anything is read or sent. */
  async checkConnection(): Promise<void> {
    const reply = await this.send('GET', '/apiversion');
    if (reply.status !== 200) throw this.unexpected('GET', '/apiversion', reply);
  }

  // A core that imports a batch sent with importNow before answering (its identity says so, or an answer's counts)
  // queues nothing of the run's; one without it queues them. Either way failures end up as FAILED queue rows.
  importsAtOnce = false;

  /** serialized: bulkImportBody(users), made beforehand (while the batch before it was being imported). */
  async enqueue(users: BulkImportUser[], serialized?: KeptBytes): Promise<EnqueueResult> {
    const body = serialized === undefined ? { users } : new SerializedBody(serialized.bytes);
    const reply = await this.send('POST', '/bulk-import/users', { query: { importNow: 'true' }, body });
    if (reply.status === 200) {
      const answered = asRecord(reply.json).users;
      const userIds = Array.isArray(answered) ? answered.map(firstLoginMethodId) : [];
      if (userIds.length !== users.length) throw this.unexpected('POST', '/bulk-import/users', reply);
      const { imported, failed } = asRecord(reply.json);
      if (typeof imported === 'number') this.importsAtOnce = true;
      return { ok: true, userIds, allImported: imported === users.length && failed === 0 };
    }
    if (reply.status === 413) return { ok: false, tooLarge: true };
    // A core without a signer key fails every $f_scrypt$ user alike: that is said as it is (unexpected), not isolated.
    if (reply.status === 500 && !reply.text.includes(SIGNER_KEY_MISSING))
      return { ok: false, serverError: reply.text.trim().slice(0, 300) };
    const invalid = invalidUsers(reply);
    if (invalid) return { ok: false, invalid };
    throw this.unexpected('POST', '/bulk-import/users', reply);
  }

  /** The raw answer of the server's dry run; dry-run.ts interprets it. */
  dryRun(users: BulkImportUser[]): Promise<CoreReply> {
    return this.send('POST', '/bulk-import/users', { query: { dryRun: 'true' }, body: { users } });
  }

  async importUser(user: BulkImportUser): Promise<{ ok: true; userId: string } | { ok: false; errors: string[] }> {
    const reply = await this.send('POST', '/bulk-import/import', { body: user });
    const body = asRecord(reply.json);
    if (reply.status === 200 && body.status === 'OK') return { ok: true, userId: String(asRecord(body.user).id) };
    if (reply.status === 400 && Array.isArray(body.errors)) return { ok: false, errors: body.errors.map(String) };
    throw this.unexpected('POST', '/bulk-import/import', reply);
  }

  /**
   * Whether the core verifies `password` against `passwordHash` as it would import it, storing nothing; a 400 names
   * what it refuses in the hash. undefined: a core without the route.
   */
  async checkPasswordHash(
    passwordHash: string,
    hashingAlgorithm: string,
    password?: string,
  ): Promise<{ verified?: boolean } | { refused: string } | undefined> {
    const reply = await this.send('POST', '/bulk-import/password-hash/check', { body: { passwordHash, hashingAlgorithm, password } });
    const verified = asRecord(reply.json).verified;
    // Asked without a password, the core verifies nothing: its 200 only says it would import the hash.
    if (reply.status === 200 && password === undefined) return {};
    if (reply.status === 200 && typeof verified === 'boolean') return { verified };
    if (reply.status === 400) return { refused: reply.text.trim().slice(0, 300) };
    if (reply.status === 404) return undefined;
    throw this.unexpected('POST', '/bulk-import/password-hash/check', reply);
  }

  async signIn(email: string, password: string): Promise<string> {
    const reply = await this.send('POST', '/recipe/signin', { body: { email, password } });
    const status = asRecord(reply.json).status;
    if (reply.status === 200 && typeof status === 'string') return status;
    throw this.unexpected('POST', '/recipe/signin', reply);
  }

  async removeUser(userId: string): Promise<void> {
    const reply = await this.send('POST', '/user/remove', { body: { userId } });
    if (reply.status !== 200) throw this.unexpected('POST', '/user/remove', reply);
  }

  /** The user with this (external) id, or undefined. */
  async findUser(userId: string): Promise<Record<string, unknown> | undefined> {
    const reply = await this.send('GET', '/user/id', { query: { userId } });
    const body = asRecord(reply.json);
    if (reply.status === 200 && body.status === 'OK') return asRecord(body.user);
    if (reply.status === 200 && body.status === 'UNKNOWN_USER_ID_ERROR') return undefined;
    throw this.unexpected('GET', '/user/id', reply);
  }

  /** The core's database id; undefined for a core without the route (then progress is tied to its URL). */
  async coreIdentity(): Promise<string | undefined> {
    const reply = await this.send('GET', '/bulk-import/core-identity');
    const { coreId, importsAtOnce } = asRecord(reply.json);
    if (importsAtOnce === true) this.importsAtOnce = true;
    if (reply.status === 200 && typeof coreId === 'string') return coreId;
    if (reply.status === 404) return undefined;
    throw this.unexpected('GET', '/bulk-import/core-identity', reply);
  }

  /**
   * The relying-party ids the core imports passkeys for (its webauthn_rp_ids): null when the setting is unset (it
   * imports none), undefined from a core that does not say (one from before passkeys, or without the route).
   */
  async webauthnRpIds(): Promise<string[] | null | undefined> {
    const reply = await this.send('GET', '/bulk-import/core-identity');
    if (reply.status === 404) return undefined;
    if (reply.status !== 200) throw this.unexpected('GET', '/bulk-import/core-identity', reply);
    const { webauthnRpIds } = asRecord(reply.json);
    if (webauthnRpIds === null) return null;
    return Array.isArray(webauthnRpIds) ? webauthnRpIds.map(String) : undefined;
  }

  /** How many users the core holds, in every tenant. */
  async countUsers(): Promise<number> {
    const reply = await this.send('GET', '/users/count', { query: { includeAllTenants: 'true' } });
    const count = asRecord(reply.json).count;
    if (reply.status === 200 && typeof count === 'number') return count;
    throw this.unexpected('GET', '/users/count', reply);
  }

  async lookup(body: LookupBody): Promise<CoreUser[]> {
    const reply = await this.send('POST', '/bulk-import/users/lookup', { body });
    const users = asRecord(reply.json).users;
    if (reply.status === 200 && Array.isArray(users)) return users as CoreUser[];
    throw this.unexpected('POST', '/bulk-import/users/lookup', reply);
  }

  /** The lookup with what each user found holds beyond login methods (none from a core that does not answer it). */
  async lookupWithMaterial(body: LookupBody): Promise<{ users: CoreUser[]; material: CoreMaterial[] }> {
    const reply = await this.send('POST', '/bulk-import/users/lookup', { body: { ...body, withMaterial: true } });
    const { users, material } = asRecord(reply.json);
    if (reply.status === 200 && Array.isArray(users)) {
      return { users: users as CoreUser[], material: Array.isArray(material) ? (material as CoreMaterial[]) : [] };
    }
    throw this.unexpected('POST', '/bulk-import/users/lookup', reply);
  }

  /** Completes users an earlier run created; a core without the route throws RouteMissingError. */
  async complete(users: BulkImportUser[]): Promise<CompleteResult> {
    const reply = await this.send('POST', '/bulk-import/users/complete', { body: { users } });
    const answers = asRecord(reply.json).users;
    if (reply.status === 200 && Array.isArray(answers) && answers.length === users.length) {
      return { ok: true, answers: answers as CompletionAnswer[] };
    }
    const invalid = invalidUsers(reply);
    if (invalid) return { ok: false, invalid };
    throw this.unexpected('POST', '/bulk-import/users/complete', reply);
  }

  async countQueue(status: 'NEW' | 'PROCESSING' | 'FAILED'): Promise<number> {
    const reply = await this.send('GET', '/bulk-import/users/count', { query: { status } });
    const count = asRecord(reply.json).count;
    if (reply.status === 200 && typeof count === 'number') return count;
    throw this.unexpected('GET', '/bulk-import/users/count', reply);
  }

  /** Every status's count in one request, from a core that answers them together; undefined from one that does not. */
  async countQueueByStatus(): Promise<Record<'NEW' | 'PROCESSING' | 'FAILED', number> | undefined> {
    const reply = await this.send('GET', '/bulk-import/users/count');
    const byStatus = asRecord(asRecord(reply.json).byStatus);
    if (reply.status !== 200) throw this.unexpected('GET', '/bulk-import/users/count', reply);
    const counts = { NEW: byStatus.NEW, PROCESSING: byStatus.PROCESSING, FAILED: byStatus.FAILED };
    return Object.values(counts).every((count) => typeof count === 'number') ? (counts as Record<keyof typeof counts, number>) : undefined;
  }

  async listQueue(status: 'NEW' | 'PROCESSING' | 'FAILED', paginationToken?: string): Promise<{ rows: QueueRow[]; next?: string }> {
    const query: Record<string, string> = { status, limit: '500', ...(paginationToken !== undefined && { paginationToken }) };
    const reply = await this.send('GET', '/bulk-import/users', { query });
    const body = asRecord(reply.json);
    if (reply.status !== 200 || !Array.isArray(body.users)) throw this.unexpected('GET', '/bulk-import/users', reply);
    const next = typeof body.nextPaginationToken === 'string' ? body.nextPaginationToken : undefined;
    return { rows: body.users as QueueRow[], next };
  }

  /** Declares a role with its permissions (PUT /recipe/role adds permissions, never removes them); true when it is new. */
  async putRole(role: string, permissions: string[]): Promise<boolean> {
    const reply = await this.send('PUT', '/recipe/role', { body: { role, permissions } });
    const body = asRecord(reply.json);
    if (reply.status === 200 && body.status === 'OK') return body.createdNewRole === true;
    if (reply.status === 404)
      throw new RouteMissingError(`the core at ${this.baseUrl} has no PUT /recipe/role (404), so the mapping's roles cannot be declared`);
    throw this.unexpected('PUT', '/recipe/role', reply);
  }

  async removeQueueRows(ids: string[]): Promise<void> {
    const reply = await this.send('POST', '/bulk-import/users/remove', { body: { ids } });
    if (reply.status !== 200) throw this.unexpected('POST', '/bulk-import/users/remove', reply);
  }

  async send(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    request: { query?: Record<string, string>; body?: unknown } = {},
  ): Promise<CoreReply> {
    const url = `${this.baseUrl}${path}${request.query ? `?${new URLSearchParams(request.query)}` : ''}`;
    const attempts = this.options.attempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      let reply: CoreReply | undefined;
      let failure: unknown;
      try {
        reply = await this.requestOnce(method, url, request.body);
      } catch (error) {
        failure = error;
      }
      if (reply && !isTransient(reply)) return reply;
      if (attempt >= attempts || this.options.signal?.aborted) {
        if (reply) return reply;
        throw new CliError(
          `cannot reach the core at ${this.baseUrl} (${describe(failure)}): is it running? (--core-url or ${CORE_URL_VARIABLE})`,
        );
      }
      await delay((this.options.retryDelayMs ?? 500) * 2 ** (attempt - 1), this.options.signal);
    }
  }

  private async requestOnce(method: string, url: string, body: unknown): Promise<CoreReply> {
    const headers: Record<string, string> = { ...(this.options.apiKey && { 'api-key': this.options.apiKey }) };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const { status, text } = await httpRequest(url, {
      method,
      headers,
      body: body === undefined ? undefined : body instanceof SerializedBody ? body.json : JSON.stringify(body),
      timeoutMs: this.options.requestTimeoutMs ?? 300_000,
    });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status, text, json };
  }

  private unexpected(method: string, path: string, reply: CoreReply): CliError {
    const text = reply.text.trim();
    if (reply.status === 401) {
      const sent = this.options.apiKey === undefined ? 'no API key was sent' : 'the API key sent is not one of its api_keys';
      return new CliError(
        `the core at ${this.baseUrl} answered 401 (${sent}): pass one of the core's api_keys with --api-key or in ${API_KEY_VARIABLE}`,
      );
    }
    if (text.includes(SIGNER_KEY_MISSING)) {
      return new CliError(
        `the core has no signer key, so it cannot take $f_scrypt$ hashes: set idp_password_hashing_signer_key (env IDP_PASSWORD_HASHING_SIGNER_KEY) on the core to base64_signer_key of the hash config, restart it, and run again`,
      );
    }
    if (reply.status === 404)
      return new RouteMissingError(`the core at ${this.baseUrl} has no ${method} ${path} (404): is it an identity-core with bulk import?`);
    return new CliError(`${method} ${path} answered ${reply.status}: ${text.slice(0, 500)}`);
  }
}

// 500 with the signer-key text is a configuration answer, not a passing failure.
function isTransient(reply: CoreReply): boolean {
  return reply.status >= 500 && !reply.text.includes(SIGNER_KEY_MISSING);
}

function invalidUsers(reply: CoreReply): { index: number; errors: string[] }[] | undefined {
  const users = asRecord(reply.json).users;
  if (reply.status !== 400 || !Array.isArray(users)) return undefined;
  return users.map((entry) => {
    const item = asRecord(entry);
    return { index: Number(item.index), errors: Array.isArray(item.errors) ? item.errors.map(String) : [] };
  });
}

// With one login method per user, its id is the user's id in the core.
function firstLoginMethodId(user: unknown): string {
  const methods = asRecord(user).loginMethods;
  return Array.isArray(methods) ? String(asRecord(methods[0]).userId) : '';
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function describe(error: unknown): string {
  if (error instanceof Error) return (error as { code?: string }).code ?? error.message;
  return String(error);
}

export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
