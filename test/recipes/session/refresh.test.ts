import { describe, expect, it } from 'vitest';
import { call, expectText, useTestApp } from '../../helper.js';
import { created, decodeJwt, sessionApi, sha, tokenInfo } from './support.js';

const storedHashes = async (t: ReturnType<typeof useTestApp>, handle: string) =>
  (
    await t.db.pool.query(
      'SELECT refresh_token_hash_2, prev_refresh_token_hash_2, refresh_token_rotated_at, expires_at FROM session_info WHERE session_handle = $1',
      [handle],
    )
  ).rows[0];

describe('legacy refresh, promotion and theft at cdi 5.4 (vectors 5 to 7)', () => {
  const t = useTestApp();

  it('refreshes without moving the stored hash, promotes at verify, then reports the parent as theft', async () => {
    const api = sessionApi(t.app);
    const first = created(await api.create({ userDataInJWT: { k: 'v' } }));
    const rt0 = first.refreshToken;
    const reply = await api.refresh(rt0);
    expect(reply.json).toEqual({
      session: { handle: first.handle, userId: 'u1', recipeUserId: 'u1', userDataInJWT: { k: 'v' }, tenantId: 'public' },
      accessToken: tokenInfo,
      refreshToken: tokenInfo,
      status: 'OK',
    });
    const second = created(reply);
    expect(decodeJwt(second.accessToken).payload).toMatchObject({
      parentRefreshTokenHash1: sha(rt0),
      refreshTokenHash1: sha(second.refreshToken),
    });
    expect((await storedHashes(t, first.handle)).refresh_token_hash_2).toBe(sha(sha(rt0)));
    // The same current token refreshes again: not theft.
    expect((await api.refresh(rt0)).json.status).toBe('OK');

    const missingFlag = await call(t.app, 'POST', '/recipe/session/refresh', {
      body: { refreshToken: rt0, enableAntiCsrf: false },
      headers: { 'cdi-version': '5.4' },
    });
    expect([missingFlag.statusCode, expectText(missingFlag)]).toEqual([400, "Field name 'useDynamicSigningKey' is invalid in JSON input"]);

    // Vector 6: the first use of AT1 promotes RT1.
    const infoBefore = (await api.info(first.handle)).json;
    t.clock.advance(5000);
    const promoted = await api.verify(second.accessToken);
    expect(promoted.json).toEqual({
      session: { handle: first.handle, userId: 'u1', recipeUserId: 'u1', userDataInJWT: { k: 'v' }, tenantId: 'public' },
      accessToken: tokenInfo,
      status: 'OK',
    });
    const at2 = decodeJwt(promoted.json.accessToken.token).payload;
    expect(at2).toMatchObject({ parentRefreshTokenHash1: null, sessionHandle: first.handle, refreshTokenHash1: sha(second.refreshToken) });
    expect((at2.exp as number) - (at2.iat as number)).toBe(3600);
    expect((await storedHashes(t, first.handle)).refresh_token_hash_2).toBe(sha(sha(second.refreshToken)));
    expect((await api.info(first.handle)).json.expiry).toBeGreaterThan(infoBefore.expiry);

    // Vector 7: the parent after its child was used is theft; the session stays and RT1 still refreshes.
    expect((await api.refresh(rt0)).json).toEqual({
      status: 'TOKEN_THEFT_DETECTED',
      session: { handle: first.handle, userId: 'u1', recipeUserId: 'u1' },
    });
    expect((await api.info(first.handle)).json.status).toBe('OK');
    expect((await api.refresh(second.refreshToken)).json.status).toBe('OK');
  });

  it('reports RT0 as theft after RT0 to RT1 to RT2', async () => {
    const api = sessionApi(t.app);
    const s0 = created(await api.create());
    const s1 = created(await api.refresh(s0.refreshToken));
    const s2 = created(await api.refresh(s1.refreshToken));
    expect((await api.refresh(s2.refreshToken)).json.status).toBe('OK');
    expect((await api.refresh(s0.refreshToken)).json).toEqual({
      status: 'TOKEN_THEFT_DETECTED',
      session: { handle: s0.handle, userId: 'u1', recipeUserId: 'u1' },
    });
  });

  it('refuses a tampered or foreign refresh token, and a refresh of a removed session', async () => {
    const api = sessionApi(t.app);
    const s0 = created(await api.create());
    const [sealed, nonce, suffix] = s0.refreshToken.split('.');
    const flipped = `${sealed.slice(0, 10)}${sealed[10] === 'A' ? 'B' : 'A'}${sealed.slice(11)}.${nonce}.${suffix}`;
    for (const token of [flipped, `${sealed}.${'0'.repeat(32)}.${suffix}`, 'x', '']) {
      expect((await api.refresh(token)).json).toEqual({ status: 'UNAUTHORISED', message: 'Invalid refresh token' });
    }
    await api.remove({ sessionHandles: [s0.handle] });
    expect((await api.refresh(s0.refreshToken)).json).toEqual({ status: 'UNAUTHORISED', message: 'Session missing in db or has expired' });
  });
});

describe('rotation at cdi 5.6 (vectors 8 and 9)', () => {
  const t = useTestApp();

  it('rotates, accepts the previous token within the grace period, and ends the session on an orphaned branch', async () => {
    const api = sessionApi(t.app, '5.6');
    const s0 = created(await api.create());
    const r1 = await api.refresh(s0.refreshToken);
    const s1 = created(r1);
    expect(decodeJwt(s1.accessToken).payload.parentRefreshTokenHash1).toBeNull();
    expect(await storedHashes(t, s0.handle)).toEqual({
      refresh_token_hash_2: sha(sha(s1.refreshToken)),
      prev_refresh_token_hash_2: sha(sha(s0.refreshToken)),
      refresh_token_rotated_at: t.clock.now(),
      expires_at: t.clock.now() + 144000 * 60_000,
    });
    t.clock.advance(10_000);
    const again = created(await api.refresh(s0.refreshToken));
    expect((await storedHashes(t, s0.handle)).refresh_token_hash_2).toBe(sha(sha(again.refreshToken)));
    expect((await api.refresh(s1.refreshToken)).json).toEqual({
      status: 'TOKEN_THEFT_DETECTED',
      session: { handle: s0.handle, userId: 'u1', recipeUserId: 'u1' },
      recentTokenReuseSubtype: 'ORPHANED_BRANCH',
    });
    expect((await api.info(s0.handle)).json).toEqual({ status: 'UNAUTHORISED', message: 'Session does not exist.' });
  });

  it('verifies statelessly, reports a payload update, and refuses another tenant', async () => {
    const legacy = sessionApi(t.app, '5.4');
    const api = sessionApi(t.app, '5.6');
    const s0 = created(await legacy.create({ userDataInJWT: { k: 'v' } }));
    const s1 = created(await legacy.refresh(s0.refreshToken));
    const before = await storedHashes(t, s0.handle);
    expect((await api.verify(s1.accessToken)).json).toEqual({ session: expect.any(Object), status: 'OK' });
    expect(await storedHashes(t, s0.handle)).toEqual(before);
    expect((await api.verify(s1.accessToken, { checkDatabase: true })).json).toEqual({
      session: { handle: s0.handle, userId: 'u1', recipeUserId: 'u1', userDataInJWT: { k: 'v' }, tenantId: 'public' },
      payloadUpdateAvailable: false,
      status: 'OK',
    });
    expect((await api.put('/recipe/jwt/data', { sessionHandle: s0.handle, userDataInJWT: { k: 'w' } })).json).toEqual({ status: 'OK' });
    expect((await api.verify(s1.accessToken, { checkDatabase: true })).json.payloadUpdateAvailable).toBe(true);
    const otherTenant = await api.verify(s1.accessToken, {}, '/t1/recipe/session/verify');
    expect([otherTenant.statusCode, expectText(otherTenant)]).toEqual([403, 'Only public tenantId can call this app specific API']);
  });
});

describe('rotation without grace (vector 8, second half)', () => {
  const t = useTestApp({ refresh_token_rotation_grace_period: 0, recent_token_reuse_behaviour: 'UNAUTHORISED' });

  it('answers RECENT_PREV as UNAUTHORISED when configured, and the session is gone', async () => {
    const api = sessionApi(t.app, '5.6');
    const s0 = created(await api.create());
    created(await api.refresh(s0.refreshToken));
    t.clock.advance(5);
    expect((await api.refresh(s0.refreshToken)).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'refresh token reuse detected',
      recentTokenReuseSubtype: 'RECENT_PREV',
    });
    expect((await api.info(s0.handle)).json.status).toBe('UNAUTHORISED');
  });

  it('always answers a stale lineage as theft', async () => {
    const api = sessionApi(t.app, '5.6');
    const s0 = created(await api.create());
    const s1 = created(await api.refresh(s0.refreshToken));
    const s2 = created(await api.refresh(s1.refreshToken));
    created(await api.refresh(s2.refreshToken));
    expect((await api.refresh(s0.refreshToken)).json).toEqual({
      status: 'TOKEN_THEFT_DETECTED',
      session: { handle: s0.handle, userId: 'u1', recipeUserId: 'u1' },
      recentTokenReuseSubtype: 'STALE_LINEAGE',
    });
  });
});
