import { errorMessage } from '../../errors.js';
import { cdiAtLeast, type CdiVersion } from '../../http/cdi-version.js';
import { withTransaction } from '../../db/transaction.js';
import { verifyAccessToken, type AccessTokenClaims, type JsonObject } from './access-token.js';
import { sha256Hex } from './handles.js';
import * as repo from './repository.js';
import type { VerifySessionResult } from './schemas.js';
import type { SessionServiceDeps } from './deps.js';
import { sessionOfClaims, toWireSession } from './session-object.js';
import { sameJson, type TokenMinter } from './token-minter.js';

export interface VerifyInput {
  accessToken: string;
  antiCsrfToken: string | undefined;
  doAntiCsrfCheck: boolean;
  enableAntiCsrf: boolean;
  checkDatabase: boolean;
  cdi: CdiVersion;
}

const unauthorised = (message: string) => ({ status: 'UNAUTHORISED' as const, message });

/**
 * POST /recipe/session/verify (S-4.2): the token's signature, claims and expiry, anti-CSRF when asked, the session's
 * existence with checkDatabase; up to cdi 5.5 the first use of a token from a refresh promotes it, from 5.6 nothing
 * is written and the lineage of the token is checked instead.
 */
export async function verifySession(deps: SessionServiceDeps, minter: TokenMinter, input: VerifyInput): Promise<VerifySessionResult> {
  const { pool, clock, keys } = deps;
  const read = await verifyAccessToken(input.accessToken, (kid) => keys.findVerificationKey(kid), clock());
  if ('status' in read) return read;
  const { claims } = read;
  if (input.doAntiCsrfCheck && input.enableAntiCsrf) {
    if (claims.antiCsrfToken === null) return { status: 'TRY_REFRESH_TOKEN', message: errorMessage('ACCESS_TOKEN_ANTI_CSRF_FAILED') };
    if (input.antiCsrfToken !== claims.antiCsrfToken) {
      return { status: 'TRY_REFRESH_TOKEN', message: errorMessage('ACCESS_TOKEN_ANTI_CSRF_FAILED') };
    }
  }
  const fromToken = { session: toWireSession(sessionOfClaims(claims), input.cdi), status: 'OK' as const };
  let stored: repo.SessionRow | undefined;
  if (input.checkDatabase) {
    // Existence only, whatever the row's expiry: a legacy refresh extends it only at promotion (S-4.2 step 3).
    stored = await repo.findSession(pool, claims.tId, claims.sessionHandle);
    if (!stored) return unauthorised(errorMessage('SESSION_ENDED'));
  }
  if (cdiAtLeast(input.cdi, '5.6')) {
    if (!stored) return fromToken;
    const lineage = [stored.refresh_token_hash_2, stored.prev_refresh_token_hash_2];
    const inLineage =
      lineage.includes(sha256Hex(claims.refreshTokenHash1)) ||
      (claims.parentRefreshTokenHash1 !== null && lineage.includes(sha256Hex(claims.parentRefreshTokenHash1)));
    if (!inLineage) return unauthorised(errorMessage('SESSION_ROTATED_OUT'));
    return { ...fromToken, payloadUpdateAvailable: !sameJson(claims.custom, JSON.parse(stored.jwt_user_payload)), status: 'OK' };
  }
  const needsUpdate = stored !== undefined && !sameJson(claims.custom, JSON.parse(stored.jwt_user_payload));
  if (claims.parentRefreshTokenHash1 === null && !needsUpdate) return fromToken;
  return promote(deps, minter, claims, needsUpdate, input.cdi, fromToken);
}

// S-4.2 steps 6: the first use of an access token from a legacy refresh moves the stored hash to its refresh
// token, and a token whose claims are behind the stored payload is re-minted.
async function promote(
  deps: SessionServiceDeps,
  minter: TokenMinter,
  claims: AccessTokenClaims,
  needsUpdate: boolean,
  cdi: CdiVersion,
  fromToken: VerifySessionResult,
): Promise<VerifySessionResult> {
  const { pool, clock } = deps;
  // The new token is signed after the commit, so the row lock is not held for a signature.
  const outcome = await withTransaction(pool, async (client): Promise<VerifySessionResult | (() => Promise<VerifySessionResult>)> => {
    const row = await repo.findSession(client, claims.tId, claims.sessionHandle, true);
    if (!row) return unauthorised(errorMessage('SESSION_MISSING_IN_DB'));
    const now = clock();
    const promote = claims.parentRefreshTokenHash1 !== null && sha256Hex(claims.parentRefreshTokenHash1) === row.refresh_token_hash_2;
    const ownHash2 = sha256Hex(claims.refreshTokenHash1);
    if (promote) {
      await repo.updateSessionTokens(client, row.tenant_id, row.session_handle, {
        refresh_token_hash_2: ownHash2,
        prev_refresh_token_hash_2: row.refresh_token_hash_2,
        refresh_token_rotated_at: now,
        expires_at: now + minter.refreshTokenValidityMs,
        use_static_key: row.use_static_key,
      });
    } else if (ownHash2 !== row.refresh_token_hash_2 && !needsUpdate) {
      return fromToken;
    }
    const payload = JSON.parse(row.jwt_user_payload) as JsonObject;
    return async () => {
      const access = await minter.accessToken(
        { ...claims, parentRefreshTokenHash1: null, custom: payload },
        row.use_static_key,
        { kind: 'full' },
        now,
      );
      return {
        session: toWireSession({ ...sessionOfClaims(claims), userDataInJWT: payload }, cdi),
        accessToken: access.token,
        status: 'OK' as const,
      };
    };
  });
  return typeof outcome === 'function' ? outcome() : outcome;
}
