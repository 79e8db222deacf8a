import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { CoreClient } from './core-client.js';
import { gzipDigest } from './gzip-digest.js';
import { startsWithGzipMagic } from './readers/file-source.js';
import type { MigrateOptions } from './options.js';

/** What a run's saved progress is only valid for: this core, this export, these options. */
export interface RunIdentity {
  coreId: string;
  exportDigest: string;
  /** Of every option that changes what is sent; batch sizes and timings are left out. */
  optionsDigest: string;
}

/** signal: the digest of a large export takes seconds, and Ctrl-C or SIGTERM stops it at once. */
export async function runIdentity(client: CoreClient, options: MigrateOptions, signal?: AbortSignal): Promise<RunIdentity> {
  const exportDigest = exportDigestOf([options.file, ...(options.usersFiles ?? [])], signal);
  exportDigest.catch(() => {});
  const digestOf = (path: string | undefined) => (path === undefined ? null : fileDigest(path, signal));
  const [coreId, hashConfig, passwordHashes, sideFiles] = await Promise.all([
    client.coreIdentity().then((id) => id ?? `core at ${options.coreUrl}`),
    digestOf(options.hashConfigPath),
    digestOf(options.passwordHashesPath),
    sideFileDigests(options, signal),
  ]);
  const optionsDigest = sha256(
    JSON.stringify({
      source: options.source,
      format: options.format ?? null,
      includeDisabled: options.includeDisabled,
      lazySource: options.lazySource ?? null,
      providerOverrides: [...options.providerOverrides.entries()].sort(),
      ...(options.tenant !== undefined && { tenant: options.tenant }),
      hashConfig,
      passwordHashes,
      ...sideFiles,
    }),
  );
  return { coreId, exportDigest: await exportDigest, optionsDigest };
}

/** Why saved progress made under `saved` does not apply to `current`, or undefined when it does. */
export function identityMismatch(saved: RunIdentity, current: RunIdentity): string | undefined {
  const reasons = [
    saved.coreId !== current.coreId && 'another core (its database id differs)',
    saved.exportDigest !== current.exportDigest && 'another version of the export',
    saved.optionsDigest !== current.optionsDigest &&
      'other options (hash config, password hashes, --include-disabled, --map-provider, --format, or a mapping or joined file)',
  ].filter((reason): reason is string => typeof reason === 'string');
  return reasons.length === 0 ? undefined : reasons.join(', ');
}

// Keys appear only when their option is given, so a run started before these options existed keeps its progress.
async function sideFileDigests(options: MigrateOptions, signal?: AbortSignal): Promise<Record<string, string>> {
  const files = {
    mapping: options.mappingPath,
    clerkApi: options.clerkApiPath,
    identities: options.identitiesPath,
    mfaFactors: options.mfaFactorsPath,
    orgs: options.orgsPath,
  };
  const given = Object.entries(files).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return Object.fromEntries(await Promise.all(given.map(async ([name, path]) => [name, await fileDigest(path, signal)])));
}

function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

// The first batch is sent once the export's digest is known. A small file is hashed on the main thread, between
// its other work (SHA-256 takes about a millisecond per megabyte here, less than a thread costs to start); a large one
// on a thread of its own, so that hashing it does not hold up reading the first batches.
const THREAD_FROM_BYTES = 32 * 1024 * 1024;
const CHUNK_BYTES = 4 * 1024 * 1024;

// An export of several files (a Keycloak realm and its users files) is another version when any of them is.
async function exportDigestOf([file, ...more]: string[], signal?: AbortSignal): Promise<string> {
  if (more.length === 0) return exportFileDigest(file, signal);
  const digests = await Promise.all([file, ...more].map((path) => exportFileDigest(path, signal)));
  return sha256(digests.join('\n'));
}

async function exportFileDigest(path: string, signal?: AbortSignal): Promise<string> {
  if (!startsWithGzipMagic(path)) return fileDigest(path, signal);
  return gzipDigest(path, (await fs.stat(path)).size, signal);
}

async function fileDigest(path: string, signal?: AbortSignal): Promise<string> {
  const file = await fs.open(path, 'r');
  try {
    if ((await file.stat()).size >= THREAD_FROM_BYTES) return await digestOnThread(path, signal);
    const hash = crypto.createHash('sha256');
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) return hash.digest('hex');
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await file.close();
  }
}

const DIGEST_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const crypto = require('node:crypto');
const fs = require('node:fs');
const hash = crypto.createHash('sha256');
const descriptor = fs.openSync(workerData, 'r');
const buffer = Buffer.allocUnsafe(${CHUNK_BYTES});
for (let read; (read = fs.readSync(descriptor, buffer, 0, buffer.length, null)) > 0; ) hash.update(buffer.subarray(0, read));
fs.closeSync(descriptor);
parentPort.postMessage(hash.digest('hex'));
`;

function digestOnThread(path: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const worker = new Worker(DIGEST_THREAD, { eval: true, workerData: path });
    const stop = () => {
      reject(signal?.reason);
      void worker.terminate();
    };
    signal?.addEventListener('abort', stop, { once: true });
    worker.once('message', (digest: string) => resolve(digest));
    worker.once('error', reject);
    worker.once('exit', () => {
      signal?.removeEventListener('abort', stop);
      reject(new Error(`the digest of ${path} stopped before it was taken`));
    });
  });
}
