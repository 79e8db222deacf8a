import { errorMessage } from '../../errors.js';
import { cdiAtLeast, type CdiVersion } from '../../http/cdi-version.js';
import { withTransaction } from '../../db/transaction.js';
import { accessTokenVersionFor, type JsonObject } from './access-token.js';
import { newAntiCsrfToken, sha256Hex } from './handles.js';
import { openRefreshToken, type RefreshTokenContent } from './refresh-token.js';
import * as repo from './repository.js';
import type { RefreshSessionResult } from './schemas.js';
import type { SessionServiceDeps } from './deps.js';
import { toWireSession } from './session-object.js';
import type { MintedRefreshToken, TokenMinter } from './token-minter.js';

export interface RefreshInput {
  refreshToken: string;
  antiCsrfToken: string | undefined;
  enableAntiCsrf: boolean;
  // undefined: keep the session's key family.
  useDynamicSigningKey: boolean | undefined;
  // cdi 5.6: the raw field, range-checked after the anti-CSRF check (S-4.3 step 2).
  accessTokenValidity: unknown;
  checkAccessTokenValidity: (value: unknown) => number;
  cdi: CdiVersion;
}

type ReuseSubtype = 'RECENT_PREV' | 'ORPHANED_BRANCH' | 'STALE_LINEAGE';

/**
 * POST /recipe/session/refresh (S-4.3). Up to cdi 5.5 the stored hash moves only when a child refresh token is
 * used (a parent used after its child is theft); from 5.6 every refresh rotates, a just-replaced token is accepted
 * again within the grace period, and any other reuse ends the session.
 */
export async function refreshSession(deps: SessionServiceDeps, minter: TokenMinter, input: RefreshInput): Promise<RefreshSessionResult> {
  const { pool, clock, keys, config } = deps;
  const content = openRefreshToken(await keys.refreshTokenSecret(), input.refreshToken);
  if (!content) return { status: 'UNAUTHORISED', message: errorMessage('REFRESH_TOKEN_INVALID') };
  if (input.enableAntiCsrf && content.antiCsrfToken !== null && input.antiCsrfToken !== content.antiCsrfToken) {
    return { status: 'UNAUTHORISED', message: errorMessage('REFRESH_ANTI_CSRF_FAILED') };
  }
  const rotation = cdiAtLeast(input.cdi, '5.6');
  const validityMs =
    rotation && input.accessTokenValidity !== undefined
      ? input.checkAccessTokenValidity(input.accessTokenValidity)
      : minter.accessTokenValidityMs;
  const hash1 = sha256Hex(input.refreshToken);
  const hash2 = sha256Hex(hash1);
  const parentHash2 = content.parentRefreshTokenHash1 === null ? undefined : sha256Hex(content.parentRefreshTokenHash1);
  if (rotation) {
    const rotated = await rotateCurrent(deps, minter, input, content, { hash1, hash2, parentHash2, validityMs });
    if (rotated) return rotated;
  } else if (parentHash2 !== undefined) {
    const promoted = await promoteChild(deps, minter, input, content, { hash1, hash2, parentHash2, validityMs });
    if (promoted) return promoted;
  }

  // The access token is signed after the commit: the row lock and the connection are not held for a signature.
  const outcome = await withTransaction(pool, async (client): Promise<RefreshSessionResult | Signing> => {
    const now = clock();
    const row = await repo.findSessionWithPrimary(client, content.tenantId, content.sessionHandle, true);
    if (!row || row.expires_at <= now) return { status: 'UNAUTHORISED' as const, message: errorMessage('SESSION_MISSING_OR_EXPIRED') };
    const useStaticKey = input.useDynamicSigningKey === undefined ? row.use_static_key : !input.useDynamicSigningKey;
    const session = { handle: row.session_handle, userId: row.primary_user_id, recipeUserId: row.user_id };
    const isCurrent = hash2 === row.refresh_token_hash_2;
    const isChildOfCurrent = parentHash2 === row.refresh_token_hash_2;
    const hashes = {
      refresh_token_hash_2: row.refresh_token_hash_2,
      prev_refresh_token_hash_2: row.prev_refresh_token_hash_2,
      refresh_token_rotated_at: row.refresh_token_rotated_at,
      expires_at: row.expires_at,
      use_static_key: useStaticKey,
    };
    const mint = (parentOfAccessToken: string | null) =>
      mintPair(minter, { row, session, useStaticKey, validityMs, cdi: input.cdi, now, hash1, parentOfAccessToken, input });

    if (!rotation) {
      if (!isCurrent && !isChildOfCurrent) return theft(session, input.cdi);
      if (isChildOfCurrent) {
        Object.assign(hashes, {
          refresh_token_hash_2: hash2,
          prev_refresh_token_hash_2: row.refresh_token_hash_2,
          refresh_token_rotated_at: now,
          expires_at: now + minter.refreshTokenValidityMs,
        });
      }
      if (isChildOfCurrent || useStaticKey !== row.use_static_key)
        await repo.updateSessionTokens(client, row.tenant_id, row.session_handle, hashes);
      return (await mint(hash1)).sign;
    }

    const withinGrace =
      hash2 === row.prev_refresh_token_hash_2 &&
      row.refresh_token_rotated_at !== null &&
      now <= row.refresh_token_rotated_at + config.refresh_token_rotation_grace_period * 1000;
    if (isCurrent || isChildOfCurrent || withinGrace) {
      const minted = await mint(null);
      const rotated = withinGrace
        ? { ...hashes, refresh_token_hash_2: minted.hash2 }
        : {
            ...hashes,
            refresh_token_hash_2: minted.hash2,
            prev_refresh_token_hash_2: hash2,
            refresh_token_rotated_at: now,
            expires_at: now + minter.refreshTokenValidityMs,
          };
      await repo.updateSessionTokens(client, row.tenant_id, row.session_handle, rotated);
      return minted.sign;
    }
    const subtype: ReuseSubtype =
      hash2 === row.prev_refresh_token_hash_2
        ? 'RECENT_PREV'
        : parentHash2 !== undefined && parentHash2 === row.prev_refresh_token_hash_2
          ? 'ORPHANED_BRANCH'
          : 'STALE_LINEAGE';
    await repo.deleteSession(client, row.tenant_id, row.session_handle);
    if (subtype === 'STALE_LINEAGE' || config.recent_token_reuse_behaviour === 'TOKEN_THEFT') {
      return { ...theft(session, input.cdi), recentTokenReuseSubtype: subtype };
    }
    return { status: 'UNAUTHORISED' as const, message: errorMessage('REFRESH_TOKEN_REUSED'), recentTokenReuseSubtype: subtype };
  });
  return typeof outcome === 'function' ? outcome() : outcome;
}

type Signing = () => Promise<RefreshSessionResult>;

function theft(session: { handle: string; userId: string; recipeUserId: string }, cdi: CdiVersion) {
  return {
    status: 'TOKEN_THEFT_DETECTED' as const,
    session: {
      handle: session.handle,
      userId: session.userId,
      ...(cdiAtLeast(cdi, '4.0') && { recipeUserId: session.recipeUserId }),
    },
  };
}

interface MintContext {
  row: repo.SessionRow;
  session: { handle: string; userId: string; recipeUserId: string };
  useStaticKey: boolean;
  validityMs: number;
  cdi: CdiVersion;
  now: number;
  // H1 of the refresh token presented: the parent of the new one.
  hash1: string;
  // The new access token's parentRefreshTokenHash1: H1 of the presented token (legacy) or null (rotation).
  parentOfAccessToken: string | null;
  input: RefreshInput;
}

async function mintPair(minter: TokenMinter, context: MintContext) {
  const { row, session, now, cdi } = context;
  const antiCsrfToken = context.input.enableAntiCsrf ? newAntiCsrfToken() : null;
  const refresh = await minter.refreshToken(
    {
      sessionHandle: row.session_handle,
      userId: row.user_id,
      parentRefreshTokenHash1: context.hash1,
      antiCsrfToken,
      tenantId: row.tenant_id,
    },
    now,
  );
  const payload = JSON.parse(row.jwt_user_payload) as JsonObject;
  const sign = () =>
    signAnswer(minter, {
      session: { ...session, tenantId: row.tenant_id },
      payload,
      refresh,
      antiCsrfToken,
      parentOfAccessToken: context.parentOfAccessToken,
      useStaticKey: context.useStaticKey,
      validityMs: context.validityMs,
      cdi,
      now,
    });
  return { hash2: refresh.hash2, sign };
}

interface Answer {
  session: { handle: string; userId: string; recipeUserId: string; tenantId: string };
  payload: JsonObject;
  refresh: MintedRefreshToken;
  antiCsrfToken: string | null;
  parentOfAccessToken: string | null;
  useStaticKey: boolean;
  validityMs: number;
  cdi: CdiVersion;
  now: number;
}

/** Signs the access token that goes with a new refresh token, and builds the OK answer. */
async function signAnswer(minter: TokenMinter, answer: Answer): Promise<RefreshSessionResult> {
  const { session, payload, refresh, antiCsrfToken, cdi, now } = answer;
  const access = await minter.accessToken(
    {
      version: accessTokenVersionFor(cdi),
      sub: session.userId,
      tId: session.tenantId,
      rsub: session.recipeUserId,
      sessionHandle: session.handle,
      refreshTokenHash1: refresh.hash1,
      parentRefreshTokenHash1: answer.parentOfAccessToken,
      antiCsrfToken,
      custom: payload,
    },
    answer.useStaticKey,
    { kind: 'jittered', validityMs: answer.validityMs },
    now,
  );
  return {
    session: toWireSession({ ...session, userDataInJWT: payload }, cdi),
    accessToken: access.token,
    refreshToken: refresh.token,
    ...(antiCsrfToken !== null && { antiCsrfToken }),
    status: 'OK' as const,
  };
}

interface PresentedHashes {
  hash1: string;
  hash2: string;
  parentHash2: string | undefined;
  validityMs: number;
}

/**
 * Every accepted cdi 5.6 refresh of a live session, in one statement: the current token, the child of the current
 * one, or the replaced one within the grace period (two tabs refreshing at once). The conditional UPDATE takes the
 * row lock and decides as the locked read below would; only reuse and theft (and a missing or expired session) fall
 * back to it. The new refresh token can be sealed before: it carries only what the presented one does.
 */
async function rotateCurrent(
  deps: SessionServiceDeps,
  minter: TokenMinter,
  input: RefreshInput,
  content: RefreshTokenContent,
  presented: PresentedHashes,
): Promise<RefreshSessionResult | undefined> {
  const now = deps.clock();
  const antiCsrfToken = input.enableAntiCsrf ? newAntiCsrfToken() : null;
  const refresh = await minter.refreshToken(
    {
      sessionHandle: content.sessionHandle,
      userId: content.userId,
      parentRefreshTokenHash1: presented.hash1,
      antiCsrfToken,
      tenantId: content.tenantId,
    },
    now,
  );
  const row = await repo.rotateCurrentToken(deps.pool, {
    tenantId: content.tenantId,
    handle: content.sessionHandle,
    userId: content.userId,
    presentedHash2: presented.hash2,
    parentHash2: presented.parentHash2 ?? null,
    newHash2: refresh.hash2,
    now,
    expiresAt: now + minter.refreshTokenValidityMs,
    gracePeriodMs: deps.config.refresh_token_rotation_grace_period * 1000,
    useStaticKey: input.useDynamicSigningKey === undefined ? null : !input.useDynamicSigningKey,
  });
  if (!row) return undefined;
  return signAnswer(minter, {
    session: { handle: content.sessionHandle, userId: row.primary_user_id, recipeUserId: content.userId, tenantId: content.tenantId },
    payload: JSON.parse(row.jwt_user_payload) as JsonObject,
    refresh,
    antiCsrfToken,
    parentOfAccessToken: null,
    useStaticKey: row.use_static_key,
    validityMs: presented.validityMs,
    cdi: input.cdi,
    now,
  });
}

/**
 * The common case of a refresh up to cdi 5.5: the child of the current token, used for the first time, in one
 * statement that moves the stored hash to it (what the locked path below does for it, without BEGIN, the locked
 * read and COMMIT). Anything else (the current token again, a key family change only, reuse) falls back to the
 * locked read.
 */
async function promoteChild(
  deps: SessionServiceDeps,
  minter: TokenMinter,
  input: RefreshInput,
  content: RefreshTokenContent,
  presented: PresentedHashes & { parentHash2: string },
): Promise<RefreshSessionResult | undefined> {
  const now = deps.clock();
  const antiCsrfToken = input.enableAntiCsrf ? newAntiCsrfToken() : null;
  const row = await repo.promoteChildToken(deps.pool, {
    tenantId: content.tenantId,
    handle: content.sessionHandle,
    userId: content.userId,
    parentHash2: presented.parentHash2,
    presentedHash2: presented.hash2,
    now,
    expiresAt: now + minter.refreshTokenValidityMs,
    useStaticKey: input.useDynamicSigningKey === undefined ? null : !input.useDynamicSigningKey,
  });
  if (!row) return undefined;
  const refresh = await minter.refreshToken(
    {
      sessionHandle: content.sessionHandle,
      userId: content.userId,
      parentRefreshTokenHash1: presented.hash1,
      antiCsrfToken,
      tenantId: content.tenantId,
    },
    now,
  );
  return signAnswer(minter, {
    session: { handle: content.sessionHandle, userId: row.primary_user_id, recipeUserId: content.userId, tenantId: content.tenantId },
    payload: JSON.parse(row.jwt_user_payload) as JsonObject,
    refresh,
    antiCsrfToken,
    parentOfAccessToken: presented.hash1,
    useStaticKey: row.use_static_key,
    validityMs: presented.validityMs,
    cdi: input.cdi,
    now,
  });
}
