import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';
import { errorMessage } from '../../errors.js';
import { importedRpIdProblem, type RelyingParties } from './relying-parties.js';

// A passkey carried from another provider (contract-webauthn W-4): parsed and bounded when it is imported, stored as
// a browser would present it (the id as unpadded base64url) with the COSE key bytes as given.
export interface ImportWebauthnCredential {
  credentialId: string;
  publicKey: string;
  rpId: string;
  counter: number;
  transports: string[];
  aaguid?: string;
  userHandle?: string;
  createdAt?: number;
}

// WebAuthn L3 §5.1: a credential id is at most 1,023 bytes.
const maxCredentialIdBytes = 1023;
const maxPublicKeyBytes = 2048;
const base64Text = /^[A-Za-z0-9+/_-]+={0,2}$/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Standard base64 or base64url, padded or not; undefined when it is neither. */
function decodeBase64(text: string): Buffer | undefined {
  if (!base64Text.test(text) || (/[+/]/.test(text) && /[-_]/.test(text))) return undefined;
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 0 ? undefined : bytes;
}

type Cose = Map<number, number | Uint8Array>;

const b64 = (value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64url') : undefined);

// The key types W-4 names: EC2 P-256 with ES256, RSA with RS256, OKP Ed25519 with EdDSA.
function jwkOf(cose: Cose): JsonWebKey | string {
  const kty = cose.get(1);
  const alg = cose.get(3);
  if (kty === 2) {
    if (alg !== -7) return `has an unsupported algorithm ${String(alg)} for an EC2 key (only ES256, -7)`;
    if (cose.get(-1) !== 1) return 'is an EC2 key on a curve other than P-256';
    return { kty: 'EC', crv: 'P-256', x: b64(cose.get(-2)), y: b64(cose.get(-3)) };
  }
  if (kty === 3) {
    if (alg !== -257) return `has an unsupported algorithm ${String(alg)} for an RSA key (only RS256, -257)`;
    return { kty: 'RSA', n: b64(cose.get(-1)), e: b64(cose.get(-2)) };
  }
  if (kty === 1) {
    if (alg !== -8) return `has an unsupported algorithm ${String(alg)} for an OKP key (only EdDSA, -8)`;
    if (cose.get(-1) !== 6) return 'is an OKP key on a curve other than Ed25519';
    return { kty: 'OKP', crv: 'Ed25519', x: b64(cose.get(-2)) };
  }
  return `has an unsupported key type ${String(kty)} (EC2, RSA or OKP)`;
}

function publicKeyProblem(bytes: Buffer): string | undefined {
  let cose: Cose;
  try {
    cose = decodeCredentialPublicKey(new Uint8Array(bytes)) as unknown as Cose;
  } catch {
    return 'is not a COSE key';
  }
  if (!(cose instanceof Map)) return 'is not a COSE key';
  const jwk = jwkOf(cose);
  if (typeof jwk === 'string') return jwk;
  try {
    createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    return 'is not a valid public key';
  }
  return undefined;
}

/** One credential of a webauthn login method; errors are pushed naming the field, and nothing is returned then. */
export function readImportedCredential(
  value: unknown,
  index: number,
  errors: string[],
  parties: RelyingParties | undefined,
): ImportWebauthnCredential | undefined {
  const failed = errors.length;
  const refuse = (field: string, problem: string) => errors.push(errorMessage('BULK_WEBAUTHN_CREDENTIAL_FIELD', index, field, problem));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    refuse('', 'must be an object');
    return undefined;
  }
  const input = value as Record<string, unknown>;
  const text = (field: string, required: boolean): string | undefined => {
    const item = input[field];
    if (item === undefined || item === null) {
      if (required) refuse(field, 'is required');
      return undefined;
    }
    if (typeof item !== 'string' || item === '') {
      refuse(field, 'must be a non-empty string');
      return undefined;
    }
    return item;
  };

  const idText = text('credentialId', true);
  const id = idText === undefined ? undefined : decodeBase64(idText);
  if (idText !== undefined && id === undefined) refuse('credentialId', 'is not base64url or base64');
  if (id !== undefined && id.length > maxCredentialIdBytes) refuse('credentialId', `is longer than ${maxCredentialIdBytes} bytes`);

  const keyText = text('publicKey', true);
  const key = keyText === undefined ? undefined : decodeBase64(keyText);
  if (keyText !== undefined && key === undefined) refuse('publicKey', 'is not base64url or base64');
  if (key !== undefined) {
    const problem = key.length > maxPublicKeyBytes ? `is longer than ${maxPublicKeyBytes} bytes` : publicKeyProblem(key);
    if (problem) refuse('publicKey', problem);
  }

  const rpId = text('rpId', true);
  if (rpId !== undefined && parties !== undefined) {
    const problem = importedRpIdProblem(parties, rpId);
    if (problem) errors.push(errorMessage('BULK_WEBAUTHN_RP_ID', index, problem));
  }

  const counter = input.counter ?? 0;
  if (typeof counter !== 'number' || !Number.isSafeInteger(counter) || counter < 0 || counter > 0xffffffff) {
    refuse('counter', 'must be an integer from 0 to 4294967295');
  }
  const transports = input.transports ?? [];
  if (!Array.isArray(transports) || !transports.every((item) => typeof item === 'string' && item.length <= 32) || transports.length > 8) {
    refuse('transports', 'must be an array of at most 8 strings');
  }
  const aaguid = text('aaguid', false);
  if (aaguid !== undefined && !uuid.test(aaguid)) refuse('aaguid', 'is not a UUID');
  const userHandleText = text('userHandle', false);
  const userHandle = userHandleText === undefined ? undefined : decodeBase64(userHandleText);
  if (userHandleText !== undefined && (userHandle === undefined || userHandle.length > 64)) {
    refuse('userHandle', 'is not base64url of at most 64 bytes');
  }
  const createdAt = input.createdAt;
  if (createdAt !== undefined && (typeof createdAt !== 'number' || !Number.isSafeInteger(createdAt) || createdAt < 0)) {
    refuse('createdAt', 'must be a non-negative integer (ms since the epoch)');
  }

  if (errors.length > failed) return undefined;
  return {
    credentialId: id!.toString('base64url'),
    publicKey: key!.toString('base64url'),
    rpId: rpId!.toLowerCase(),
    counter: counter as number,
    transports: transports as string[],
    ...(aaguid !== undefined && { aaguid: aaguid.toLowerCase() }),
    ...(userHandle !== undefined && { userHandle: userHandle.toString('base64url') }),
    ...(createdAt !== undefined && { createdAt: createdAt as number }),
  };
}
