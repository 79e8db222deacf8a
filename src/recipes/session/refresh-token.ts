import crypto from 'node:crypto';

// What a refresh token carries (S-2.4). The SDK never reads it; the core reads it back to find the session.
export interface RefreshTokenContent {
  sessionHandle: string;
  userId: string;
  // sha(parent refresh token), null for the first refresh token of a session.
  parentRefreshTokenHash1: string | null;
  antiCsrfToken: string | null;
  tenantId: string;
}

interface Packed {
  h: string;
  u: string;
  p: string | null;
  a: string | null;
  t: string;
  n: string;
}

const ivBytes = 12;
const tagBytes = 16;
const nonceBytes = 16;
const suffix = 'V2';

/**
 * `<base64url(iv ‖ AES-256-GCM(JSON) ‖ tag)>.<nonce>.V2` [PROPOSAL]: the reference's shape with a cookie-safe
 * alphabet. The secret is one per database (key_value `refresh_token_key`), so any core reads any core's tokens; the
 * authenticated encryption makes a token unforgeable and tamper-evident, and the nonce, repeated inside, makes each
 * token unique.
 */
export function sealRefreshToken(secret: Buffer, content: RefreshTokenContent): string {
  // One draw from the CSPRNG for both: each draw is a call into OpenSSL, and a refresh seals a token every time.
  const random = crypto.randomBytes(nonceBytes + ivBytes);
  const nonce = random.toString('hex', 0, nonceBytes);
  const packed: Packed = {
    h: content.sessionHandle,
    u: content.userId,
    p: content.parentRefreshTokenHash1,
    a: content.antiCsrfToken,
    t: content.tenantId,
    n: nonce,
  };
  const iv = random.subarray(nonceBytes);
  const cipher = crypto.createCipheriv('aes-256-gcm', secret, iv);
  const sealed = Buffer.concat([iv, cipher.update(JSON.stringify(packed), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${sealed.toString('base64url')}.${nonce}.${suffix}`;
}

/** The content of a token this database's secret sealed, or undefined for anything else. */
export function openRefreshToken(secret: Buffer, token: string): RefreshTokenContent | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[2] !== suffix || !/^[A-Za-z0-9_-]+$/.test(parts[0])) return undefined;
  const sealed = Buffer.from(parts[0], 'base64url');
  if (sealed.length <= ivBytes + tagBytes) return undefined;
  let packed: Packed;
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', secret, sealed.subarray(0, ivBytes));
    decipher.setAuthTag(sealed.subarray(sealed.length - tagBytes));
    const plain = Buffer.concat([decipher.update(sealed.subarray(ivBytes, sealed.length - tagBytes)), decipher.final()]);
    packed = JSON.parse(plain.toString('utf8')) as Packed;
  } catch {
    return undefined;
  }
  if (packed.n !== parts[1]) return undefined;
  return {
    sessionHandle: packed.h,
    userId: packed.u,
    parentRefreshTokenHash1: packed.p,
    antiCsrfToken: packed.a,
    tenantId: packed.t,
  };
}
