import { createPublicKey } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { LoginMethod, PasskeyCredential } from '../bulk-user.js';
import { readImportedCredential } from '../../recipes/webauthn/import-credential.js';
import { compact } from './assemble.js';
import type { PasskeyContext, PasskeyOutcome } from './passkey-types.js';
export type { PasskeyContext, PasskeyOutcome } from './passkey-types.js';

// Passkeys a reader found, turned into one webauthn login method (contract-webauthn W-4) and report lines: each
// passkey carried, each left behind with the reason. Every reader maps its own layout to a FoundPasskey and leaves the
// rest here, so the rules (RP ID, the core's webauthn_rp_ids, the checks bulk import makes) are the same for all.

/** What a run knows about relying parties: `--rp-id`, and the core's `webauthn_rp_ids`. */
/** One passkey as a reader found it: text fields as the source writes them. */
export interface FoundPasskey {
  /** Where the export holds it, for the report (`credentials[2] webauthn-passwordless`). */
  where: string;
  /** The raw credential id as base64 or base64url. */
  credentialId?: string;
  /** The public key as base64 or base64url: a COSE_Key, or an SPKI (DER) key, which is converted. */
  publicKey?: string;
  /** The RP ID the source stored with the passkey; else --rp-id. */
  rpId?: string;
  counter?: number;
  transports?: string[];
  aaguid?: string;
  /** The user handle as raw bytes (the reader knows the source's encoding). */
  userHandle?: Buffer;
  createdAt?: number;
  /** Held as a second factor (Keycloak `webauthn`, Supabase `mfa_factors`, Hanko `mfa_only`, Kratos not passwordless). */
  secondFactor: boolean;
  /** Set when the source holds the passkey but gives out nothing to carry it with. */
  problem?: string;
}

const NO_PASSKEYS: PasskeyOutcome = { secondFactor: false, carried: [], notCarried: [], reEnrol: false, rpIds: [], unconfiguredRpIds: [] };

export function carryPasskeys(
  found: readonly FoundPasskey[],
  email: string | undefined,
  common: Pick<LoginMethod, 'isVerified' | 'timeJoinedInMSSinceEpoch'>,
  context: PasskeyContext | undefined,
): PasskeyOutcome {
  if (found.length === 0) return NO_PASSKEYS;
  const credentials: PasskeyCredential[] = [];
  const outcome: PasskeyOutcome = { secondFactor: false, carried: [], notCarried: [], reEnrol: false, rpIds: [], unconfiguredRpIds: [] };
  const seen = new Set<string>();
  for (const passkey of found) {
    const rpId = (passkey.rpId ?? context?.rpId)?.toLowerCase();
    outcome.rpIds.push(rpId ?? '');
    const read = readPasskey(passkey, rpId, context);
    const name = passkey.credentialId === undefined ? passkey.where : `passkey ${shortId(passkey.credentialId)}`;
    if ('problem' in read) {
      if (read.unconfigured) outcome.unconfiguredRpIds.push(rpId!);
      outcome.reEnrol = true;
      outcome.notCarried.push(`${name} (${passkey.where}): ${read.problem}; left behind, marked to re-enrol`);
      continue;
    }
    const key = `${read.rpId}\n${read.credentialId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    credentials.push(read);
    outcome.secondFactor ||= passkey.secondFactor;
    outcome.carried.push(`passkey ${shortId(read.credentialId)} (rp ${read.rpId}, ${passkey.secondFactor ? 'second factor' : 'sign-in'})`);
  }
  if (credentials.length === 0) return outcome;
  outcome.candidate = {
    method: compact({ recipeId: 'webauthn' as const, email, credentials, ...common }),
    problem: email === undefined ? 'passkey user without an email (the core keeps a passkey under an email)' : undefined,
  };
  return outcome;
}

function readPasskey(
  passkey: FoundPasskey,
  rpId: string | undefined,
  context: PasskeyContext | undefined,
): PasskeyCredential | { problem: string; unconfigured?: true } {
  if (passkey.problem !== undefined) return { problem: passkey.problem };
  if (passkey.credentialId === undefined) return { problem: 'no credential id at the source' };
  if (passkey.publicKey === undefined) return { problem: 'no public key at the source' };
  if (rpId === undefined) return { problem: 'the export does not say its relying-party id: pass --rp-id <the domain it was made for>' };
  const coreRpIds = context?.coreRpIds;
  if (coreRpIds === null)
    return { problem: `RP id ${rpId} is not configured at the core (its setting webauthn_rp_ids is unset)`, unconfigured: true };
  if (coreRpIds !== undefined && !coreRpIds.includes(rpId)) {
    return {
      problem: `RP id ${rpId} is not configured at the core (webauthn_rp_ids lists ${coreRpIds.length === 0 ? 'none' : coreRpIds.join(', ')})`,
      unconfigured: true,
    };
  }
  const credentialId = toBase64Url(passkey.credentialId);
  const publicKey = coseKeyOf(passkey.publicKey);
  if (credentialId === undefined) return { problem: 'the credential id is not base64 or base64url' };
  if (publicKey === undefined) return { problem: 'the public key is neither a COSE key nor an SPKI key' };
  const credential: PasskeyCredential = compact({
    credentialId,
    publicKey,
    rpId,
    counter: passkey.counter,
    transports: passkey.transports !== undefined && passkey.transports.length > 0 ? passkey.transports : undefined,
    aaguid: passkey.aaguid !== undefined && /^0{8}-0{4}-0{4}-0{4}-0{12}$/.test(passkey.aaguid) ? undefined : passkey.aaguid,
    userHandle: passkey.userHandle !== undefined && passkey.userHandle.length > 0 ? passkey.userHandle.toString('base64url') : undefined,
    createdAt: passkey.createdAt,
  });
  // The same checks bulk import makes, so a bad passkey stays behind with its reason instead of costing the user.
  const errors: string[] = [];
  readImportedCredential(credential, 0, errors, coreRpIds === undefined ? undefined : { rpIds: coreRpIds, origins: undefined });
  if (errors.length > 0) return { problem: errors.join('; ') };
  return credential;
}

const base64Text = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Standard base64 or base64url, padded or not, as unpadded base64url (how a browser sends an id); else undefined. */
export function toBase64Url(text: string): string | undefined {
  const trimmed = text.trim();
  if (!base64Text.test(trimmed) || (/[+/]/.test(trimmed) && /[-_]/.test(trimmed))) return undefined;
  const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 0 ? undefined : bytes.toString('base64url');
}

/** Decodes base64 or base64url text to bytes; undefined when it is neither. */
export function fromBase64(text: string): Buffer | undefined {
  const url = toBase64Url(text);
  return url === undefined ? undefined : Buffer.from(url, 'base64url');
}

// The sources export COSE keys; one that holds an SPKI (DER SubjectPublicKeyInfo, a SEQUENCE: 0x30) is converted
// with node:crypto and the library's CBOR encoder. A COSE_Key is a CBOR map (0xa0-0xbf).
function coseKeyOf(text: string): string | undefined {
  const bytes = fromBase64(text);
  if (bytes === undefined) return undefined;
  if (bytes[0] !== 0x30) return bytes.toString('base64url');
  let jwk;
  try {
    jwk = createPublicKey({ key: bytes, format: 'der', type: 'spki' }).export({ format: 'jwk' });
  } catch {
    return undefined;
  }
  const b = (value: string | undefined) => new Uint8Array(Buffer.from(value ?? '', 'base64url'));
  let cose: Map<number, number | Uint8Array>;
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') {
    cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, b(jwk.x)],
      [-3, b(jwk.y)],
    ]);
  } else if (jwk.kty === 'RSA') {
    cose = new Map<number, number | Uint8Array>([
      [1, 3],
      [3, -257],
      [-1, b(jwk.n)],
      [-2, b(jwk.e)],
    ]);
  } else if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') {
    cose = new Map<number, number | Uint8Array>([
      [1, 1],
      [3, -8],
      [-1, 6],
      [-2, b(jwk.x)],
    ]);
  } else return undefined;
  return Buffer.from(isoCBOR.encode(cose as never)).toString('base64url');
}

/** The first 12 characters of an id: enough to find it in the report, short enough to read. */
function shortId(id: string): string {
  const url = toBase64Url(id) ?? id;
  return url.length > 16 ? `${url.slice(0, 12)}…` : url;
}

/** A UUID from its 16 bytes, or its text; undefined otherwise. */
export function uuidOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)) return text.toLowerCase();
  const bytes = fromBase64(text);
  if (bytes?.length !== 16) return undefined;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
