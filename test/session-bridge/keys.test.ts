import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, SignJWT } from 'jose';
import { call, expectText, useTestApp } from '../helper.js';
import { FakeIssuer } from './fake-issuer.js';
import { kindCases } from './kinds.js';
import { exchange, importUser, seconds } from './helpers.js';

const firebase = kindCases.find((k) => k.name === 'firebase')!;

function useIssuer(): { issuer: FakeIssuer } {
  const holder = {} as { issuer: FakeIssuer };
  beforeAll(async () => {
    holder.issuer = await FakeIssuer.start('RS256');
  });
  afterAll(() => holder.issuer.close());
  return holder;
}

describe('session-bridge keys: rotation at the provider', () => {
  const fake = useIssuer();
  const t = useTestApp(() => ({
    log_level: 'INFO',
    session_bridge: { sources: { fb: { ...firebase.source(fake.issuer.jwksUrl), key_ttl_seconds: 120 } } },
  }));
  const token = async (sub: string, kid?: string) => fake.issuer.mint(firebase.claims(sub, seconds(t.clock.nowMs)), { kid });

  it('picks up a new kid on its next fetch, and keeps verifying old tokens while their key is published', async () => {
    for (const n of [1, 2, 3, 4, 5]) await importUser(t.app, `rotate-${n}@example.com`, `old-rotate-${n}`);
    const [oldKid] = fake.issuer.kids;
    const byOldKey = await token('old-rotate-1', oldKid);
    expect((await exchange(t.app, 'fb', await token('old-rotate-2'))).json.status).toBe('OK');
    expect(fake.issuer.requests).toBe(1);

    const newKid = await fake.issuer.addKey('RS256');
    // Within 30 s of the last fetch an unknown kid is refused without asking the provider again.
    const early = await token('old-rotate-3', newKid);
    expect((await exchange(t.app, 'fb', early)).json).toEqual({ status: 'INVALID_TOKEN_ERROR' });
    expect(fake.issuer.requests).toBe(1);

    t.clock.advance(30_000);
    expect((await exchange(t.app, 'fb', early)).json.status).toBe('OK');
    expect(fake.issuer.requests).toBe(2);
    // The old key is still published: a token signed before the rotation verifies, from the cache.
    expect((await exchange(t.app, 'fb', byOldKey)).json.status).toBe('OK');
    expect(fake.issuer.requests).toBe(2);

    // The provider retires the old key; once the cached set runs out, tokens signed with it are refused.
    fake.issuer.removeKey(oldKid);
    t.clock.advance(120_000);
    expect((await exchange(t.app, 'fb', await token('old-rotate-4', oldKid))).json).toEqual({ status: 'INVALID_TOKEN_ERROR' });
    expect(fake.issuer.requests).toBe(3);
    expect((await exchange(t.app, 'fb', await token('old-rotate-5', newKid))).json.status).toBe('OK');
    expect(fake.issuer.requests).toBe(3);
    expect(t.logs.join('')).not.toContain(byOldKey.split('.')[2]);
  });

  it('a flood of invented kids costs the provider at most one fetch per 30 s', async () => {
    t.clock.advance(30_000);
    const before = fake.issuer.requests;
    const claims = firebase.claims('old-rotate-1', seconds(t.clock.nowMs));
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await Promise.all(
      Array.from({ length: 100 }, (_, n) =>
        new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: `invented-${n}` }).sign(privateKey),
      ),
    );
    const flood = async () => {
      const replies = await Promise.all(forged.map((token) => exchange(t.app, 'fb', token)));
      return new Set(replies.map((reply) => `${reply.statusCode} ${reply.json.status}`));
    };
    expect(await flood()).toEqual(new Set(['200 INVALID_TOKEN_ERROR']));
    expect(fake.issuer.requests - before).toBe(1);
    expect(await flood()).toEqual(new Set(['200 INVALID_TOKEN_ERROR']));
    expect(fake.issuer.requests - before).toBe(1);
    t.clock.advance(30_000);
    expect(await flood()).toEqual(new Set(['200 INVALID_TOKEN_ERROR']));
    expect(fake.issuer.requests - before).toBe(2);
    const metrics = (await call(t.app, 'GET', '/metrics')).body;
    expect(metrics).toContain('identity_core_session_bridge_invalid_tokens_total{source="fb",cause="unknown_key"} 302');
  });
});

describe('session-bridge keys: the provider down', () => {
  const fake = useIssuer();
  const t = useTestApp(() => ({
    log_level: 'WARN',
    session_bridge: { sources: { fb: { ...firebase.source(fake.issuer.jwksUrl), timeout_ms: 300, key_ttl_seconds: 60 } } },
  }));
  const token = async (sub: string) => fake.issuer.mint(firebase.claims(sub, seconds(t.clock.nowMs)));

  it('answers 503 with Retry-After while the keys cannot be fetched, never a success, and asks again after 30 s', async () => {
    await importUser(t.app, 'down@example.com', 'old-down');
    const valid = await token('old-down');
    fake.issuer.mode = 'down';
    const first = await exchange(t.app, 'fb', valid);
    expect([first.statusCode, expectText(first)]).toEqual([503, "The old provider's signing keys cannot be fetched; try again later"]);
    const headers = (
      await t.app.inject({ method: 'POST', url: '/public/session-bridge/exchange', payload: { source: 'fb', token: valid } })
    ).headers;
    expect(headers['retry-after']).toBe('30');
    expect(fake.issuer.requests).toBe(1);

    t.clock.advance(10_000);
    const waiting = await t.app.inject({ method: 'POST', url: '/public/session-bridge/exchange', payload: { source: 'fb', token: valid } });
    expect([waiting.statusCode, waiting.headers['retry-after']]).toEqual([503, '20']);
    expect(fake.issuer.requests).toBe(1);
    expect(await t.db.pool.query('SELECT count(*)::int AS n FROM session_bridge_exchanges')).toMatchObject({ rows: [{ n: 0 }] });

    fake.issuer.mode = 'normal';
    t.clock.advance(20_000);
    expect((await exchange(t.app, 'fb', valid)).json.status).toBe('OK');
    expect(fake.issuer.requests).toBe(2);
  });

  it('a provider that does not answer is given up after the timeout; stale keys are not trusted', async () => {
    await importUser(t.app, 'hang@example.com', 'old-hang');
    t.clock.advance(60_000);
    fake.issuer.mode = 'hang';
    // The fake never answers: a 503 means the core gave up on its own.
    const reply = await exchange(t.app, 'fb', await token('old-hang'));
    expect(reply.statusCode).toBe(503);
    fake.issuer.mode = 'normal';
    const metrics = (await call(t.app, 'GET', '/metrics')).body;
    expect(metrics).toContain('identity_core_session_bridge_key_fetches_total{source="fb",result="failed"} 2');
    expect(metrics).toContain('identity_core_session_bridge_key_fetches_total{source="fb",result="ok"} 1');
    expect(metrics).toContain('identity_core_session_bridge_exchanges_total{source="fb",outcome="provider_unavailable"} 4');
    expect(t.logs.join('')).toContain('session-bridge keys could not be fetched');
  });
});
