import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { call, countRows, useTestApp, type TestApp } from '../helper.js';
import { startCleanupJob } from '../../src/recipes/passwordless/cleanup-job.js';
import { created, decodeJwt, sessionApi } from '../recipes/session/support.js';

const hour = 3_600_000;
const jwksOf = async (t: TestApp) => {
  const reply = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
  return { kids: (reply.json().keys as { kid: string }[]).map((key) => key.kid), cacheControl: reply.headers['cache-control'] };
};
const dynamicKeyRows = async (t: TestApp) =>
  (await t.db.pool.query('SELECT created_at_time FROM session_access_token_signing_keys ORDER BY created_at_time')).rows.map(
    (row: { created_at_time: number }) => row.created_at_time,
  );

describe('two cores on one database share the keys (S-3.1)', () => {
  const settings = { access_token_dynamic_signing_key_update_interval: 1, access_token_validity: 600, access_token_validity_jitter: 0 };
  const a = useTestApp(settings);
  const b = useTestApp(settings, { sharing: a });
  const advanceBoth = (ms: number) => {
    b.clock.nowMs = a.clock.nowMs;
    a.clock.advance(ms);
    b.clock.advance(ms);
  };

  it('serve the same JWKS, and a session made on one is verified and refreshed by the other', async () => {
    b.clock.nowMs = a.clock.nowMs;
    const onA = await jwksOf(a);
    expect(onA.kids).toEqual((await jwksOf(b)).kids);
    expect(onA.kids).toEqual([expect.stringMatching(/^d-/), expect.stringMatching(/^s-/)]);
    expect(await countRows(a.db, 'jwt_signing_keys')).toBe(1);
    expect(await dynamicKeyRows(a)).toHaveLength(1);

    const s0 = created(await sessionApi(a.app).create({ userDataInJWT: { k: 'v' } }));
    expect((await sessionApi(b.app).verify(s0.accessToken, { checkDatabase: true })).json.status).toBe('OK');
    const s1 = created(await sessionApi(b.app).refresh(s0.refreshToken));
    const promoted = await sessionApi(a.app).verify(s1.accessToken);
    expect(promoted.json).toEqual({
      session: expect.objectContaining({ handle: s0.handle }),
      accessToken: expect.any(Object),
      status: 'OK',
    });
    // The parent after its child was used, on the other core: theft.
    expect((await sessionApi(b.app).refresh(s0.refreshToken)).json.status).toBe('TOKEN_THEFT_DETECTED');
  });

  it('rotate once between them, publish the new key a minute before it signs, and drop the old one after its window', async () => {
    const [oldKid] = (await jwksOf(a)).kids;
    const old = created(await sessionApi(a.app).create());
    expect(decodeJwt(old.accessToken).header.kid).toBe(oldKid);

    advanceBoth(hour - 60_000);
    // Both cores find the rotation due at once; the advisory lock lets only one add the key.
    const [onA, onB] = await Promise.all([jwksOf(a), jwksOf(b)]);
    expect(await dynamicKeyRows(a)).toHaveLength(2);
    const newKid = onA.kids[0];
    expect(onA.kids).toEqual([newKid, oldKid, expect.stringMatching(/^s-/)]);
    expect(onB.kids).toEqual(onA.kids);
    expect(newKid).not.toBe(oldKid);

    // Published, not yet signing.
    const during = created(await sessionApi(b.app).create());
    expect(decodeJwt(during.accessToken).header.kid).toBe(oldKid);
    advanceBoth(60_000);
    const after = created(await sessionApi(b.app).create());
    expect(decodeJwt(after.accessToken).header.kid).toBe(newKid);
    expect((await sessionApi(a.app).verify(after.accessToken)).json.status).toBe('OK');

    // The old key verifies until one interval plus two token lifetimes after it was made, then it is gone.
    const oldCreatedAt = Number(oldKid.slice(2));
    a.clock.nowMs = oldCreatedAt + hour + 2 * 600_000 - 1000;
    b.clock.nowMs = a.clock.nowMs;
    expect((await jwksOf(a)).kids).toContain(oldKid);
    advanceBoth(2000);
    expect((await jwksOf(a)).kids).not.toContain(oldKid);
    expect((await sessionApi(a.app).verify(old.accessToken)).json).toEqual({ status: 'TRY_REFRESH_TOKEN', message: 'Key not found' });
    await a.app.services.session.deleteExpired();
    expect(await dynamicKeyRows(a)).toEqual([Number(newKid.slice(2))]);
    const { cacheControl } = await jwksOf(b);
    expect(cacheControl).toMatch(/^max-age=\d+, must-revalidate$/);
  });
});

describe('a key interval of a fraction of an hour (the SDK rotation tests use 0.001 h)', () => {
  const t = useTestApp({ access_token_dynamic_signing_key_update_interval: 0.001, access_token_validity_jitter: 0 });

  it('rotates every 3.6 s, publishing each key half an interval before it signs, and verifies tokens of the old key', async () => {
    const [first] = (await jwksOf(t)).kids;
    const old = created(await sessionApi(t.app).create());
    expect(decodeJwt(old.accessToken).header.kid).toBe(first);
    // Requests within the interval add no key.
    t.clock.advance(1000);
    await jwksOf(t);
    expect(await dynamicKeyRows(t)).toHaveLength(1);

    t.clock.advance(800);
    const [next] = (await jwksOf(t)).kids;
    expect(next).not.toBe(first);
    expect(await dynamicKeyRows(t)).toHaveLength(2);
    expect(decodeJwt(created(await sessionApi(t.app).create()).accessToken).header.kid).toBe(first);
    t.clock.advance(1800);
    const fresh = created(await sessionApi(t.app).create());
    expect(decodeJwt(fresh.accessToken).header.kid).toBe(next);
    expect((await sessionApi(t.app).verify(old.accessToken)).json.status).toBe('OK');
    expect((await sessionApi(t.app).verify(fresh.accessToken)).json.status).toBe('OK');
    // The moment the second key starts signing, the third is published.
    expect(await dynamicKeyRows(t)).toHaveLength(3);
  });
});

describe('a core meeting a key another core made', () => {
  const settings = { access_token_dynamic_signing_key_update_interval: 1, access_token_validity_jitter: 0 };
  const a = useTestApp(settings);
  const b = useTestApp(settings, { sharing: a });

  it('reloads the keys once for an unknown kid and verifies the token', async () => {
    b.clock.nowMs = a.clock.nowMs;
    await Promise.all([jwksOf(a), jwksOf(b)]);
    // Only A's time moves: A adds the next key and signs with it, B still holds the old set.
    a.clock.advance(hour);
    const s = created(await sessionApi(a.app).create());
    const kid = decodeJwt(s.accessToken).header.kid;
    expect((await jwksOf(b)).kids).not.toContain(kid);
    // Past the reload cooldown (real time), B reads the new key from the database.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await sessionApi(b.app).verify(s.accessToken)).json.status).toBe('OK');
    expect((await jwksOf(b)).kids).toContain(kid);
    expect(await dynamicKeyRows(a)).toHaveLength(2);
  });
});

describe('the session cleanup job (S-5)', () => {
  const t = useTestApp({ access_token_validity: 60, refresh_token_validity: 2 });

  it('deletes expired sessions in bounded batches and keeps the live ones', async () => {
    const api = sessionApi(t.app);
    const expired = [];
    for (let i = 0; i < 5; i++) expired.push(created(await api.create({ userId: `old-${i}` })).handle);
    t.clock.advance(3 * 60_000);
    const live = created(await api.create({ userId: 'new' })).handle;
    // Two rows a batch, at most two batches a sweep: four go now, the fifth at the next sweep.
    expect(await t.app.services.session.deleteExpired(2, 2)).toBe(4);
    expect(await countRows(t.db, 'session_info')).toBe(2);
    const job = startCleanupJob(20, () => t.app.services.session.deleteExpired(), pino({ level: 'silent' }), 'sessions');
    await expect.poll(() => countRows(t.db, 'session_info'), { timeout: 5000 }).toBe(1);
    await job.stop();
    expect((await t.db.pool.query('SELECT session_handle FROM session_info')).rows).toEqual([{ session_handle: live }]);
    expect((await call(t.app, 'GET', '/recipe/session', { query: { sessionHandle: expired[0] } })).json.status).toBe('UNAUTHORISED');
  });
});
