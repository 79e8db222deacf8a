import { CliError } from '../cli-error.js';
import { compact, nonEmpty, parseTime } from './assemble.js';
import { asObject } from './carry.js';
import { FileSource } from './file-source.js';
import { fromBase64, uuidOf, type FoundPasskey } from './passkeys.js';

/** Each user's authentication methods, as `GET /api/v2/users/{id}/authentication-methods` answers them. */
export type Auth0AuthenticationMethods = ReadonlyMap<string, Record<string, unknown>[]>;

// Passkeys (`passkey`, a sign-in method) and WebAuthn MFA enrolments (`webauthn-roaming` security keys,
// `webauthn-platform` device biometrics: second factors).
const WEBAUTHN_TYPES = new Set(['passkey', 'webauthn-roaming', 'webauthn-platform']);

/**
 * The WebAuthn methods of one user: `key_id` (base64url of the raw credential id), `public_key` (the COSE key,
 * base64), `user_handle` (base64url), `aaguid`, `transports`, `relying_party_identifier` (the RP ID: the tenant's
 * custom domain, or its `*.auth0.com` domain, which cannot move), `created_at`. Auth0 gives out no signature counter
 * (0: accepted as a synced passkey's is).
 */
export function auth0Passkeys(methods: Record<string, unknown>[] | undefined): FoundPasskey[] {
  const found: FoundPasskey[] = [];
  for (const method of methods ?? []) {
    const type = nonEmpty(method.type);
    if (type === undefined || !WEBAUTHN_TYPES.has(type)) continue;
    const where = `authentication method ${nonEmpty(method.id) ?? type}`;
    const usage = Array.isArray(method.usage) ? method.usage : undefined;
    const secondFactor = type !== 'passkey' || (usage !== undefined && !usage.includes('primary'));
    const rpId = nonEmpty(method.relying_party_identifier) ?? nonEmpty(method.relying_party_id);
    const transports = Array.isArray(method.transports) ? method.transports.filter((t): t is string => typeof t === 'string') : [];
    const userHandle = nonEmpty(method.user_handle);
    const created = parseTime(method.created_at);
    found.push(
      compact({
        where,
        secondFactor,
        credentialId: nonEmpty(method.key_id),
        publicKey: nonEmpty(method.public_key),
        rpId,
        aaguid: uuidOf(method.aaguid),
        transports: transports.length > 0 ? transports : undefined,
        userHandle: userHandle === undefined ? undefined : fromBase64(userHandle),
        createdAt: created !== undefined && Number.isFinite(created) ? created : undefined,
        problem:
          nonEmpty(method.public_key) === undefined
            ? `no public key at that provider for this ${type}`
            : rpId?.endsWith('.auth0.com') === true
              ? `made for the Auth0 tenant domain ${rpId}, which no other server can serve`
              : undefined,
      }),
    );
  }
  return found;
}

/**
 * Loads the authentication methods of every user: one JSON object keyed by Auth0 user id, each value the array the
 * Management API answers for that user (docs/migration-sources.md shows a script that writes it).
 */
export async function loadAuth0AuthenticationMethods(path: string): Promise<Auth0AuthenticationMethods> {
  let text: string;
  try {
    const source = new FileSource(path);
    const chunks: string[] = [];
    for await (const chunk of source.chunks()) chunks.push(chunk);
    text = chunks.join('');
  } catch {
    throw new CliError(`cannot read ${path}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${path}: ${(error as Error).message} (expected {"<user id>": [authentication methods], ...})`);
  }
  const byUser = asObject(parsed);
  if (byUser === undefined) throw new CliError(`${path}: expected one JSON object keyed by user id`);
  const methods = new Map<string, Record<string, unknown>[]>();
  for (const [userId, list] of Object.entries(byUser)) {
    if (!Array.isArray(list)) throw new CliError(`${path}: the value for ${userId} is not an array of authentication methods`);
    methods.set(
      userId,
      list.map((item) => asObject(item) ?? {}),
    );
  }
  return methods;
}
