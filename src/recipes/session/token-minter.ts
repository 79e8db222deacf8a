import type { Config } from '../../config/config.js';
import type { SigningKeys } from '../../keys/signing-keys.js';
import { signAccessToken, type AccessTokenClaims } from './access-token.js';
import { sealRefreshToken, type RefreshTokenContent } from './refresh-token.js';
import { sha256Hex } from './handles.js';
import type { WireToken } from './schemas.js';

export type AccessTokenLifetime =
  // A fresh mint (create, refresh): the validity less a random share of up to the jitter (S-2.2).
  | { kind: 'jittered'; validityMs: number }
  // Promotion at verify: the full validity.
  | { kind: 'full' }
  // Regenerate: the presented token's expiry, in seconds.
  | { kind: 'until'; exp: number };

export interface MintedRefreshToken {
  token: WireToken;
  hash1: string;
  hash2: string;
}

/** Makes the session's tokens: what goes in them is decided by the caller, how they are sealed and signed here. */
export class TokenMinter {
  constructor(
    private readonly keys: SigningKeys,
    private readonly config: Readonly<Config>,
  ) {}

  get accessTokenValidityMs(): number {
    return this.config.access_token_validity * 1000;
  }

  get refreshTokenValidityMs(): number {
    return this.config.refresh_token_validity * 60_000;
  }

  async refreshToken(content: RefreshTokenContent, now: number): Promise<MintedRefreshToken> {
    const token = sealRefreshToken(await this.keys.refreshTokenSecret(), content);
    const hash1 = sha256Hex(token);
    return { token: { token, expiry: now + this.refreshTokenValidityMs, createdTime: now }, hash1, hash2: sha256Hex(hash1) };
  }

  /** Signs the claims (exp and iat are set here from `now` and the lifetime) with the dynamic or the static key. */
  async accessToken(
    claims: Omit<AccessTokenClaims, 'exp' | 'iat'>,
    useStaticKey: boolean,
    lifetime: AccessTokenLifetime,
    now: number,
  ): Promise<{ token: WireToken; claims: AccessTokenClaims }> {
    const iat = Math.floor(now / 1000);
    let exp: number;
    if (lifetime.kind === 'until') exp = lifetime.exp;
    else if (lifetime.kind === 'full') exp = Math.floor((now + this.accessTokenValidityMs) / 1000);
    else exp = Math.floor((now + lifetime.validityMs * (1 - Math.random() * this.config.access_token_validity_jitter)) / 1000);
    const full: AccessTokenClaims = { ...claims, exp, iat };
    const key = useStaticKey ? await this.keys.getStaticKey() : await this.keys.currentDynamicKey();
    const token = await signAccessToken(key, full);
    return { token: { token, expiry: exp * 1000, createdTime: iat * 1000 }, claims: full };
  }
}

/** JSON equality with key order ignored (custom claims against the stored payload, S-4.2). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, i) => sameJson(item, (b as unknown[])[i]));
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  return (
    aKeys.length === Object.keys(bRecord).length &&
    aKeys.every((key) => Object.hasOwn(bRecord, key) && sameJson((a as Record<string, unknown>)[key], bRecord[key]))
  );
}
