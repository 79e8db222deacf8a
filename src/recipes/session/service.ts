import { coreError, errorMessage } from '../../errors.js';
import { cdiAtLeast, type CdiVersion } from '../../http/cdi-version.js';
import {
  accessTokenVersionFor,
  findProtectedClaim,
  verifyAccessToken,
  type AccessTokenClaims,
  type AccessTokenVersion,
  type JsonObject,
} from './access-token.js';
import { newAntiCsrfToken, newSessionHandle, tenantOfHandle } from './handles.js';
import * as repo from './repository.js';
import { refreshSession, type RefreshInput } from './refresh.js';
import { verifySession, type VerifyInput } from './verify.js';
import type { RegenerateResult, RefreshSessionResult, SessionInfoResult, VerifySessionResult, WireSession, WireToken } from './schemas.js';
import { TokenMinter, type MintedRefreshToken } from './token-minter.js';
import type { SessionServiceDeps } from './deps.js';
import { sessionOfClaims, toWireSession, type Session } from './session-object.js';

export { toWireSession };
export type { VerifyInput };

export interface CreateInput {
  userId: string;
  enableAntiCsrf: boolean;
  userDataInJWT: JsonObject;
  userDataInDatabase: JsonObject;
  accessTokenValidityMs: number | undefined;
  useStaticKey: boolean;
  tenantId: string;
  cdi: CdiVersion;
}

export interface CreateResult {
  session: WireSession;
  accessToken: WireToken;
  refreshToken: WireToken;
  antiCsrfToken?: string;
  status: 'OK';
}

type Unauthorised = { status: 'UNAUTHORISED'; message: string };
const unauthorised = (message: string): Unauthorised => ({ status: 'UNAUTHORISED', message });
const sessionDoesNotExist = (): Unauthorised => unauthorised(errorMessage('SESSION_DOES_NOT_EXIST'));

// V5 tokens name the stored recipe user in rsub; V3 and V4 have only sub, the primary user when minted.
function isSessionUser(claims: AccessTokenClaims, row: repo.SessionRowWithPrimary): boolean {
  if (claims.version === 5) return claims.rsub === row.user_id;
  return claims.sub === row.user_id || claims.sub === row.primary_user_id;
}

/** A handle names its tenant (S-2.1); a tenant that does not exist (or no longer does) holds no session. */
function publicTenantOfHandle(handle: string): string {
  return tenantOfHandle(handle);
}

/** Custom claims must not use a claim of the token version (S-2.2); checked before anything is written. */
export function assertNoProtectedClaim(payload: JsonObject, version: AccessTokenVersion): void {
  if (findProtectedClaim(payload, version) !== undefined) throw coreError('SESSION_PROTECTED_CLAIM');
}

/** The Session recipe: create, verify, refresh (refresh.ts), regenerate, revoke, and the reads and updates by handle. */
export class SessionService {
  readonly minter: TokenMinter;

  constructor(private readonly deps: SessionServiceDeps) {
    this.minter = new TokenMinter(deps.keys, deps.config);
  }

  get accessTokenValidityMs(): number {
    return this.minter.accessTokenValidityMs;
  }

  async create(input: CreateInput): Promise<CreateResult> {
    const version = accessTokenVersionFor(input.cdi);
    assertNoProtectedClaim(input.userDataInJWT, version);
    const now = this.deps.clock();
    const handle = newSessionHandle(input.tenantId);
    const antiCsrfToken = input.enableAntiCsrf ? newAntiCsrfToken() : null;
    const mint = (ids: repo.SessionUserIds, refreshTokenHash1: string) =>
      this.minter.accessToken(
        {
          version,
          sub: ids.primary_user_id,
          tId: input.tenantId,
          rsub: ids.recipe_user_id,
          sessionHandle: handle,
          refreshTokenHash1,
          parentRefreshTokenHash1: null,
          antiCsrfToken,
          custom: input.userDataInJWT,
        },
        input.useStaticKey,
        { kind: 'jittered', validityMs: input.accessTokenValidityMs ?? this.accessTokenValidityMs },
        now,
      );
    const seal = (recipeUserId: string) =>
      this.minter.refreshToken(
        { sessionHandle: handle, userId: recipeUserId, parentRefreshTokenHash1: null, antiCsrfToken, tenantId: input.tenantId },
        now,
      );
    const rowFor = (recipeUserId: string, refresh: MintedRefreshToken): repo.SessionRow => ({
      tenant_id: input.tenantId,
      session_handle: handle,
      user_id: recipeUserId,
      refresh_token_hash_2: refresh.hash2,
      prev_refresh_token_hash_2: null,
      refresh_token_rotated_at: null,
      session_data: JSON.stringify(input.userDataInDatabase),
      jwt_user_payload: JSON.stringify(input.userDataInJWT),
      expires_at: refresh.token.expiry,
      created_at_time: now,
      use_static_key: input.useStaticKey,
    });
    // The SDK sends the recipe user id in its stored form, which a standalone login method or a primary user's own
    // is also the primary id of: the tokens are made for that guess while one statement checks it and inserts the
    // session. A login method linked under another primary user is signed again; another id form is resolved first.
    const guessed = { recipe_user_id: input.userId, primary_user_id: input.userId };
    let refresh = await seal(guessed.recipe_user_id);
    const [stored, guessedAccess] = await Promise.all([
      repo.insertSessionOfRecipeUser(this.deps.pool, rowFor(guessed.recipe_user_id, refresh)),
      mint(guessed, refresh.hash1),
    ]);
    let ids = guessed;
    let access = guessedAccess;
    if (stored) {
      if (stored.primary_user_id !== guessed.primary_user_id) {
        ids = { recipe_user_id: guessed.recipe_user_id, primary_user_id: stored.primary_user_id };
        access = await mint(ids, refresh.hash1);
      }
    } else {
      ids = await repo.resolveSessionUserIds(this.deps.pool, input.userId);
      refresh = await seal(ids.recipe_user_id);
      // The signature (in the thread pool) and the INSERT need nothing of each other: they overlap.
      [access] = await Promise.all([mint(ids, refresh.hash1), repo.insertSession(this.deps.pool, rowFor(ids.recipe_user_id, refresh))]);
    }
    const session: Session = {
      handle,
      userId: ids.primary_user_id,
      recipeUserId: ids.recipe_user_id,
      userDataInJWT: input.userDataInJWT,
      tenantId: input.tenantId,
    };
    return {
      session: toWireSession(session, input.cdi),
      accessToken: access.token,
      refreshToken: refresh.token,
      ...(antiCsrfToken !== null && { antiCsrfToken }),
      status: 'OK',
    };
  }

  async verify(input: VerifyInput): Promise<VerifySessionResult> {
    return verifySession(this.deps, this.minter, input);
  }

  async refresh(input: RefreshInput): Promise<RefreshSessionResult> {
    return refreshSession(this.deps, this.minter, input);
  }

  /** Checks a refresh request's accessTokenValidity (cdi 5.6), in ms; the caller decides when in the order. */
  checkAccessTokenValidity(value: unknown): number {
    if (!Number.isInteger(value)) throw coreError('INVALID_FIELD', 'accessTokenValidity');
    const ms = value as number;
    if (ms <= 0 || ms > this.accessTokenValidityMs) throw coreError('ACCESS_TOKEN_VALIDITY_RANGE', this.accessTokenValidityMs);
    return ms;
  }

  async regenerate(accessToken: string, userDataInJWT: JsonObject | undefined, cdi: CdiVersion): Promise<RegenerateResult> {
    const { pool, clock, keys } = this.deps;
    const now = clock();
    // [DEVIATION] the reference signs what it reads unverified; here only a token this core signed is regenerated.
    // An expired one still is (S-4.4 step 4), and the copy keeps its exp, so regenerate never lengthens a token.
    const read = await verifyAccessToken(accessToken, (kid) => keys.findVerificationKey(kid), now, { allowExpired: true });
    if ('status' in read) {
      const malformed = read.message === errorMessage('ACCESS_TOKEN_INVALID_JWT');
      return unauthorised(malformed ? errorMessage('ACCESS_TOKEN_INVALID') : read.message);
    }
    const { claims } = read;
    const row = await repo.findSessionWithPrimary(pool, claims.tId, claims.sessionHandle);
    if (!row || row.expires_at <= now) return sessionDoesNotExist();
    if (!isSessionUser(claims, row)) return unauthorised(errorMessage('ACCESS_TOKEN_OTHER_USER'));
    const payload = userDataInJWT ?? (JSON.parse(row.jwt_user_payload) as JsonObject);
    assertNoProtectedClaim(payload, claims.version);
    const stored = await repo.updateSessionPayload(
      pool,
      'jwt_user_payload',
      row.tenant_id,
      row.session_handle,
      JSON.stringify(payload),
      now,
    );
    if (!stored) return sessionDoesNotExist();
    const session = toWireSession({ ...sessionOfClaims(claims), userDataInJWT: payload }, cdi);
    if (claims.exp * 1000 < now) return { session, status: 'OK' };
    const access = await this.minter.accessToken(
      { ...claims, custom: payload },
      row.use_static_key,
      { kind: 'until', exp: claims.exp },
      now,
    );
    return { session, accessToken: access.token, status: 'OK' };
  }

  async getSessionInformation(handle: string, cdi: CdiVersion): Promise<SessionInfoResult> {
    const tenantId = publicTenantOfHandle(handle);
    const { pool, clock } = this.deps;
    const row = await repo.findSessionWithPrimary(pool, tenantId, handle);
    if (!row || row.expires_at <= clock()) return sessionDoesNotExist();
    return {
      sessionHandle: row.session_handle,
      userId: row.primary_user_id,
      ...(cdiAtLeast(cdi, '4.0') && { recipeUserId: row.user_id }),
      userDataInDatabase: JSON.parse(row.session_data) as JsonObject,
      expiry: row.expires_at,
      userDataInJWT: JSON.parse(row.jwt_user_payload) as JsonObject,
      timeCreated: row.created_at_time,
      status: 'OK',
      ...(cdiAtLeast(cdi, '3.0') && { tenantId: row.tenant_id }),
    };
  }

  /** The stored payloads of a live session (the deprecated GETs of S-4.8). */
  async findPayloads(handle: string): Promise<{ userDataInDatabase: JsonObject; userDataInJWT: JsonObject } | undefined> {
    const tenantId = publicTenantOfHandle(handle);
    const row = await repo.findSession(this.deps.pool, tenantId, handle);
    if (!row || row.expires_at <= this.deps.clock()) return undefined;
    return {
      userDataInDatabase: JSON.parse(row.session_data) as JsonObject,
      userDataInJWT: JSON.parse(row.jwt_user_payload) as JsonObject,
    };
  }

  async updateSessionData(handle: string, data: JsonObject): Promise<{ status: 'OK' } | Unauthorised> {
    return this.updatePayload('session_data', handle, data);
  }

  async updateAccessTokenPayload(handle: string, payload: JsonObject, cdi: CdiVersion): Promise<{ status: 'OK' } | Unauthorised> {
    assertNoProtectedClaim(payload, accessTokenVersionFor(cdi));
    return this.updatePayload('jwt_user_payload', handle, payload);
  }

  private async updatePayload(column: 'session_data' | 'jwt_user_payload', handle: string, value: JsonObject) {
    const tenantId = publicTenantOfHandle(handle);
    const updated = await repo.updateSessionPayload(this.deps.pool, column, tenantId, handle, JSON.stringify(value), this.deps.clock());
    return updated ? { status: 'OK' as const } : sessionDoesNotExist();
  }

  /** Deletes these sessions whatever their expiry; answers those that existed, in the order given. */
  async revokeByHandles(handles: string[]): Promise<string[]> {
    for (const handle of handles) publicTenantOfHandle(handle);
    if (handles.length === 0) return [];
    const deleted = new Set(await repo.deleteSessionsByHandles(this.deps.pool, 'public', handles));
    return [...new Set(handles)].filter((handle) => deleted.has(handle));
  }

  async revokeByUser(userId: string, linked: boolean, tenantId: string | undefined): Promise<string[]> {
    return repo.deleteSessionsOfUser(this.deps.pool, { userId, linked, tenantId, now: this.deps.clock() });
  }

  async handlesOfUser(userId: string, linked: boolean, tenantId: string | undefined): Promise<string[]> {
    return repo.findHandlesOfUser(this.deps.pool, { userId, linked, tenantId, now: this.deps.clock() });
  }

  /** One bounded sweep: at most `batches` deletes of `batchSize` expired sessions, then the keys past their window. */
  async deleteExpired(batchSize = 1000, batches = 100): Promise<number> {
    let deleted = 0;
    for (let batch = 0; batch < batches; batch++) {
      const count = await repo.deleteExpiredSessions(this.deps.pool, this.deps.clock(), batchSize);
      deleted += count;
      if (count < batchSize) break;
    }
    await this.deps.keys.deleteExpiredKeys();
    return deleted;
  }
}
