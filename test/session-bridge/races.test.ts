import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, countRows, useTestApp } from '../helper.js';
import { FakeIssuer } from './fake-issuer.js';
import { kindCases } from './kinds.js';
import { exchange, importUser, seconds } from './helpers.js';

const firebase = kindCases.find((k) => k.name === 'firebase')!;

describe('session-bridge: one token, many exchanges at once', () => {
  let issuer: FakeIssuer;
  beforeAll(async () => {
    issuer = await FakeIssuer.start('RS256');
  });
  afterAll(() => issuer.close());
  const sources = () => ({ session_bridge: { sources: { fb: firebase.source(issuer.jwksUrl) } } });
  const t = useTestApp(sources);
  // A second core on the same database, as behind a load balancer.
  const other = useTestApp(sources, { sharing: t });
  const token = (sub: string) => issuer.mint(firebase.claims(sub, seconds(t.clock.nowMs)));
  const statuses = (replies: Array<{ json: { status: string } }>) =>
    replies.map((reply) => reply.json.status).reduce<Record<string, number>>((counts, s) => ({ ...counts, [s]: (counts[s] ?? 0) + 1 }), {});

  it('20 concurrent exchanges of one token: exactly one OK', async () => {
    const id = await importUser(t.app, 'burst@example.com', 'old-burst');
    const shared = await token('old-burst');
    const replies = await Promise.all(Array.from({ length: 20 }, () => exchange(t.app, 'fb', shared)));
    expect(statuses(replies)).toEqual({ OK: 1, TOKEN_ALREADY_USED_ERROR: 19 });
    const { rows } = await t.db.pool.query('SELECT source, user_id FROM session_bridge_exchanges');
    expect(rows).toEqual([{ source: 'fb', user_id: id }]);
  });

  it('two core instances on one database: exactly one OK', async () => {
    const id = await importUser(t.app, 'two@example.com', 'old-two');
    const shared = await token('old-two');
    const replies = await Promise.all(Array.from({ length: 20 }, (_, n) => exchange(n % 2 === 0 ? t.app : other.app, 'fb', shared)));
    expect(statuses(replies)).toEqual({ OK: 1, TOKEN_ALREADY_USED_ERROR: 19 });
    const { rows } = await t.db.pool.query('SELECT user_id FROM session_bridge_exchanges WHERE user_id = $1', [id]);
    expect(rows).toHaveLength(1);
  });

  it('reports per source and day the exchanges, the users bridged and the refusals of every instance', async () => {
    expect((await exchange(t.app, 'fb', 'garbage')).json.status).toBe('INVALID_TOKEN_ERROR');
    // The other instance writes its refusal counts on its next flush (every 5 s) or when it stops.
    await other.app.services.sessionBridge.stop();
    const day = new Date(t.clock.nowMs).toISOString().slice(0, 10);
    expect((await call(t.app, 'GET', '/session-bridge/status')).json).toEqual({
      status: 'OK',
      sources: [
        {
          name: 'fb',
          configured: true,
          kind: 'firebase',
          deadline: null,
          days: [{ day, bridged: 2, users: 2, refused: { already_used: 38, malformed: 1 } }],
        },
      ],
    });
    expect(await countRows(t.db, 'session_bridge_refusals')).toBe(2);
    const metrics = (await call(t.app, 'GET', '/metrics')).body;
    expect(metrics).toContain('identity_core_session_bridge_exchanges_total{source="fb",outcome="bridged"}');
    expect(metrics).toContain('identity_core_session_bridge_exchanges_total{source="fb",outcome="invalid_token"} 1');
  });
});
