import { CompactSign, compactVerify, decodeProtectedHeader } from 'jose';
import { cdiAtLeast, type CdiVersion } from '../../http/cdi-version.js';
import { errorMessage } from '../../errors.js';
import { signingAlgorithm, type SigningKey } from '../../keys/key-pair.js';

export type AccessTokenVersion = 3 | 4 | 5;
export type JsonObject = Record<string, unknown>;

// S-2.2: the version minted for a request's cdi-version.
export function accessTokenVersionFor(cdi: CdiVersion): AccessTokenVersion {
  if (cdiAtLeast(cdi, '4.0')) return 5;
  if (cdiAtLeast(cdi, '3.0')) return 4;
  return 3;
}

const v3Claims = ['sub', 'exp', 'iat', 'sessionHandle', 'refreshTokenHash1', 'parentRefreshTokenHash1', 'antiCsrfToken'];
// The claims the core sets and requires, per version; custom claims may not use them.
const protectedClaims: Record<AccessTokenVersion, readonly string[]> = {
  3: v3Claims,
  4: [...v3Claims, 'tId'],
  5: [...v3Claims, 'tId', 'rsub'],
};

export function findProtectedClaim(payload: JsonObject, version: AccessTokenVersion): string | undefined {
  return protectedClaims[version].find((claim) => Object.hasOwn(payload, claim));
}

// Claims only a session's access token carries (sub, exp and iat are every JWT's). A POST /recipe/jwt payload may
// not hold them: signed by the same keys, such a token would pass the SDK's structure check (docs/sessions.md).
const sessionOnlyClaims = protectedClaims[5].filter((claim) => !['sub', 'exp', 'iat'].includes(claim));

export function findSessionOnlyClaim(payload: JsonObject): string | undefined {
  return sessionOnlyClaims.find((claim) => Object.hasOwn(payload, claim));
}

export interface AccessTokenClaims {
  version: AccessTokenVersion;
  sub: string;
  // Seconds since the epoch.
  exp: number;
  iat: number;
  tId: string;
  rsub: string;
  sessionHandle: string;
  refreshTokenHash1: string;
  parentRefreshTokenHash1: string | null;
  antiCsrfToken: string | null;
  // The custom claims (`userDataInJWT`), in their order.
  custom: JsonObject;
}

export interface ReadAccessToken {
  kid: string;
  claims: AccessTokenClaims;
}

// The reference's key order (S-2.2), then the custom claims; V3 has neither tId nor rsub, V4 no rsub.
function payloadOf(claims: AccessTokenClaims): JsonObject {
  return {
    sub: claims.sub,
    exp: claims.exp,
    iat: claims.iat,
    ...(claims.version >= 4 && { tId: claims.tId }),
    ...(claims.version >= 5 && { rsub: claims.rsub }),
    sessionHandle: claims.sessionHandle,
    refreshTokenHash1: claims.refreshTokenHash1,
    parentRefreshTokenHash1: claims.parentRefreshTokenHash1,
    antiCsrfToken: claims.antiCsrfToken,
    ...claims.custom,
  };
}

const encoder = new TextEncoder();

export async function signAccessToken(key: SigningKey, claims: AccessTokenClaims): Promise<string> {
  return new CompactSign(encoder.encode(JSON.stringify(payloadOf(claims))))
    .setProtectedHeader({ alg: signingAlgorithm, typ: 'JWT', kid: key.kid, version: String(claims.version) })
    .sign(key.privateKey);
}

export type AccessTokenProblem = { status: 'TRY_REFRESH_TOKEN' | 'UNAUTHORISED'; message: string };

interface Header {
  kid: string;
  version: AccessTokenVersion;
}

// The header this core writes on access tokens: typ JWT, alg RS256, a string kid and a string version 3-5.
// [DEVIATION] the reference reads an absent version as 5; POST /recipe/jwt writes no version, so a token without
// one is never taken for a session.
function readHeader(token: string): Header | undefined {
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return undefined;
  }
  if (header.typ !== 'JWT' || header.alg !== signingAlgorithm || typeof header.kid !== 'string') return undefined;
  const version = header.version;
  if (version !== '3' && version !== '4' && version !== '5') return undefined;
  return { kid: header.kid, version: Number(version) as AccessTokenVersion };
}

const stringClaims = ['sub', 'sessionHandle', 'refreshTokenHash1', 'tId', 'rsub'];
const nullableStringClaims = ['parentRefreshTokenHash1', 'antiCsrfToken'];

// Every claim of the version's list must be there with its type; the first one that is not is named.
function readClaims(payload: JsonObject, version: AccessTokenVersion): AccessTokenClaims | { missing: string } {
  for (const claim of protectedClaims[version]) {
    const value = payload[claim];
    const ok = stringClaims.includes(claim)
      ? typeof value === 'string'
      : nullableStringClaims.includes(claim)
        ? value === null || typeof value === 'string'
        : Number.isFinite(value);
    if (!ok) return { missing: claim };
  }
  const custom: JsonObject = {};
  for (const [name, value] of Object.entries(payload)) if (!protectedClaims[version].includes(name)) custom[name] = value;
  const sub = payload.sub as string;
  return {
    version,
    sub,
    exp: payload.exp as number,
    iat: payload.iat as number,
    tId: version >= 4 ? (payload.tId as string) : 'public',
    rsub: version >= 5 ? (payload.rsub as string) : sub,
    sessionHandle: payload.sessionHandle as string,
    refreshTokenHash1: payload.refreshTokenHash1 as string,
    parentRefreshTokenHash1: payload.parentRefreshTokenHash1 as string | null,
    antiCsrfToken: payload.antiCsrfToken as string | null,
    custom,
  };
}

function parsePayload(bytes: Uint8Array): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

const tryRefresh = (message: string): AccessTokenProblem => ({ status: 'TRY_REFRESH_TOKEN', message });

export interface VerifyOptions {
  // Regenerate (S-4.4) accepts an expired token, still signed by the core.
  allowExpired?: boolean;
}

/**
 * Verifies an access token as POST /recipe/session/verify does (S-4.2 step 1): header, key by kid, RS256 signature
 * (jose, restricted to RS256, so `none` and HS256 are refused), required claims, expiry.
 */
export async function verifyAccessToken(
  token: string,
  findKey: (kid: string) => Promise<SigningKey | undefined>,
  now: number,
  options: VerifyOptions = {},
): Promise<ReadAccessToken | AccessTokenProblem> {
  const header = readHeader(token);
  if (!header) return tryRefresh(errorMessage('ACCESS_TOKEN_INVALID_JWT'));
  const key = await findKey(header.kid);
  if (!key) return tryRefresh(errorMessage('ACCESS_TOKEN_KEY_NOT_FOUND'));
  let payload: JsonObject | undefined;
  try {
    payload = parsePayload((await compactVerify(token, key.publicKey, { algorithms: [signingAlgorithm] })).payload);
  } catch {
    return tryRefresh(errorMessage('ACCESS_TOKEN_SIGNATURE_FAILED'));
  }
  if (!payload) return tryRefresh(errorMessage('ACCESS_TOKEN_INVALID_JWT'));
  const claims = readClaims(payload, header.version);
  if ('missing' in claims) return tryRefresh(errorMessage('ACCESS_TOKEN_CLAIM_MISSING', claims.missing));
  if (!options.allowExpired && claims.exp * 1000 < now) return tryRefresh(errorMessage('ACCESS_TOKEN_EXPIRED'));
  return { kid: header.kid, claims };
}
