import { CliError } from '../cli-error.js';
import { parseLine } from './generic.js';
import { nonEmpty } from './assemble.js';
import { FileSource } from './file-source.js';

/**
 * The password-hash export (NDJSON from a support ticket), keyed by lower-cased email. Only email and
 * hash stay in memory: about 150 bytes per user, so a million users need ~150 MB of heap (measured).
 * An email found in several database connections with different hashes (rare) is read again in a
 * second pass that keeps each of its hashes under its `auth0|<id>` user id.
 */
export class Auth0PasswordHashes {
  private readonly byEmail = new Map<string, string>();
  private readonly ambiguous = new Map<string, Map<string, string>>();

  static async load(path: string): Promise<Auth0PasswordHashes> {
    const hashes = new Auth0PasswordHashes();
    const twice = new Set<string>();
    for await (const entry of entries(path)) {
      const existing = hashes.byEmail.get(entry.email);
      if (existing === undefined) hashes.byEmail.set(entry.email, entry.hash);
      else if (existing !== entry.hash) twice.add(entry.email);
    }
    if (twice.size === 0) return hashes;
    for (const email of twice) {
      hashes.byEmail.delete(email);
      hashes.ambiguous.set(email, new Map());
    }
    for await (const entry of entries(path)) hashes.ambiguous.get(entry.email)?.set(entry.userId, entry.hash);
    return hashes;
  }

  /** The hash for this user, or why there is none. */
  find(email: string, userId: string | undefined): { hash: string } | { problem: string } {
    const key = email.toLowerCase();
    const hash = this.byEmail.get(key);
    if (hash !== undefined) return { hash };
    const candidates = this.ambiguous.get(key);
    if (!candidates) return { problem: `no password hash for ${email} in the password-hash export` };
    const byId = userId === undefined ? undefined : candidates.get(userId);
    return byId !== undefined ? { hash: byId } : { problem: `several password hashes for ${email} in the password-hash export` };
  }

  get size(): number {
    return this.byEmail.size + this.ambiguous.size;
  }
}

async function* entries(path: string): AsyncGenerator<{ email: string; hash: string; userId: string }> {
  const source = new FileSource(path);
  let lineNumber = 0;
  for await (const line of source.lines()) {
    lineNumber++;
    const parsed = parseLine(line);
    if (parsed === undefined) continue;
    if ('reason' in parsed) throw new CliError(`${path} line ${lineNumber} ${parsed.reason}`);
    const entry = parsed.row;
    const email = emailOf(entry)?.toLowerCase();
    const hash = nonEmpty(entry.passwordHash);
    if (email !== undefined && hash !== undefined) yield { email, hash, userId: userIdOf(entry) };
  }
}

// Some lines carry the email only in `identifiers` (type "email").
function emailOf(entry: Record<string, unknown>): string | undefined {
  const direct = nonEmpty(entry.email);
  if (direct !== undefined) return direct;
  const identifiers = Array.isArray(entry.identifiers) ? (entry.identifiers as Record<string, unknown>[]) : [];
  return nonEmpty(identifiers.find((identifier) => identifier?.type === 'email')?.value);
}

// The user export names database users `auth0|<alt_id>` when a custom id exists, else `auth0|<_id>`.
function userIdOf(entry: Record<string, unknown>): string {
  const rawId = entry._id as { $oid?: unknown } | string | undefined;
  const id = nonEmpty(entry.alt_id) ?? nonEmpty(typeof rawId === 'object' && rawId !== null ? rawId.$oid : rawId);
  return `auth0|${id ?? ''}`;
}
