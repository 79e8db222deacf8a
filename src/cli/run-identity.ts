import crypto from 'node:crypto';
import fs from 'node:fs';
import type { CoreClient } from './core-client.js';
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
  const coreId = (await client.coreIdentity()) ?? `core at ${options.coreUrl}`;
  const optionsDigest = sha256(
    JSON.stringify({
      source: options.source,
      format: options.format ?? null,
      includeDisabled: options.includeDisabled,
      lazySource: options.lazySource ?? null,
      providerOverrides: [...options.providerOverrides.entries()].sort(),
      hashConfig: options.hashConfigPath === undefined ? null : await fileDigest(options.hashConfigPath, signal),
      passwordHashes: options.passwordHashesPath === undefined ? null : await fileDigest(options.passwordHashesPath, signal),
      ...(await sideFileDigests(options, signal)),
    }),
  );
  return { coreId, exportDigest: await fileDigest(options.file, signal), optionsDigest };
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
  };
  const digests: Record<string, string> = {};
  for (const [name, path] of Object.entries(files)) if (path !== undefined) digests[name] = await fileDigest(path, signal);
  return digests;
}

function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

async function fileDigest(path: string, signal?: AbortSignal): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(path, { highWaterMark: 1024 * 1024, signal })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
