import crypto from 'node:crypto';
import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { BridgeSourceConfig } from './config.js';
import type { KeySet } from './key-set.js';
import type { InvalidCause } from './kinds/types.js';

/** Larger tokens are refused unread: the biggest real ID tokens are a few kilobytes. */
export const MAX_TOKEN_BYTES = 16 * 1024;
const MAX_SUBJECT_LENGTH = 255;
// The end of year 9999: later is no real expiry, and milliseconds past 2^63 would not fit the exchange's column.
const MAX_EXPIRY_SECONDS = 253_402_300_799;

export type Verified = {
  status: 'VALID';
  subject: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /** SHA-256 of the signed part (header and payload): the same token however its signature is re-encoded. */
  digest: Buffer;
};

export type VerifyOutcome =
  Verified | { status: 'INVALID'; cause: InvalidCause } | { status: 'UNAVAILABLE'; retryAfterMs: number; reason: string };

const invalid = (cause: InvalidCause) => ({ status: 'INVALID' as const, cause });

/** Checks a token of the old provider: size, algorithm, key, signature, issuer, audience, times, the kind's own rule. */
export async function verifyOldToken(source: BridgeSourceConfig, keySet: KeySet, token: string, now: number): Promise<VerifyOutcome> {
  if (Buffer.byteLength(token, 'utf8') > MAX_TOKEN_BYTES) return invalid('oversized');
  const parts = token.split('.');
  // An empty signature is let through to the algorithm check, which names `alg: none` for what it is.
  if (parts.length !== 3 || !/^[A-Za-z0-9_-]+$/.test(parts[0] + parts[1]) || !/^[A-Za-z0-9_-]*$/.test(parts[2]))
    return invalid('malformed');
  let alg: unknown;
  let kid: unknown;
  try {
    ({ alg, kid } = decodeProtectedHeader(token));
  } catch {
    return invalid('malformed');
  }
  let key: Uint8Array | JWTVerifyGetKey;
  if (alg === 'HS256' && source.hmacSecret !== undefined) key = source.hmacSecret;
  else if (typeof alg !== 'string' || !source.algorithms.includes(alg)) return invalid('algorithm_not_allowed');
  else if (typeof kid !== 'string') return invalid('unknown_key');
  else {
    const found = await keySet.lookup(kid);
    if (found.status === 'UNKNOWN_KEY') return invalid('unknown_key');
    if (found.status === 'UNAVAILABLE') return found;
    key = found.keys;
  }
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, key as JWTVerifyGetKey, {
      algorithms: [alg],
      issuer: source.issuer,
      ...(source.audience !== undefined && { audience: source.audience }),
      requiredClaims: ['exp'],
      currentDate: new Date(now),
    }));
  } catch (error) {
    return invalid(causeOf(error));
  }
  if (claims.exp! > MAX_EXPIRY_SECONDS) return invalid('malformed');
  const rule = source.check?.(claims, now);
  if (rule !== undefined) return invalid(rule);
  const subject = source.subjectClaims.map((name) => claims[name]).find((value) => value !== undefined);
  if (!isStorableId(subject)) return invalid('missing_subject');
  const signed = token.slice(0, token.lastIndexOf('.'));
  return {
    status: 'VALID',
    subject,
    expiresAt: Math.floor(claims.exp! * 1000),
    digest: crypto.createHash('sha256').update(signed).digest(),
  };
}

// PostgreSQL text holds neither U+0000 nor a lone surrogate, and no provider issues such an id.
function isStorableId(subject: unknown): subject is string {
  return (
    typeof subject === 'string' &&
    subject !== '' &&
    subject.length <= MAX_SUBJECT_LENGTH &&
    !/[\u0000\uD800-\uDFFF]/.test(subject.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''))
  );
}

function causeOf(error: unknown): InvalidCause {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) return 'unknown_key';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'algorithm_not_allowed';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'wrong_issuer';
    if (error.claim === 'aud') return 'wrong_audience';
    if (error.claim === 'nbf') return 'not_yet_valid';
    if (error.claim === 'exp') return 'missing_expiry';
  }
  return 'malformed';
}
