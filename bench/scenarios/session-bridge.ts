import os from 'node:os';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { FakeIssuer } from '../../test/session-bridge/fake-issuer.js';
import { kindCases } from '../../test/session-bridge/kinds.js';
import { describeCpu, withCpu } from '../lib/cpu-accounting.js';
import { isOk, runLoad, type LoadResult } from '../lib/load.js';
import { cpuRatioOf, loadFigure, skippedRow, spreadNote, type Row } from '../lib/report.js';
import { alternate } from '../lib/rounds.js';
import { postJson, routeExists, type Scenario } from '../lib/scenario.js';

const name = 'session-bridge';
const path = '/public/session-bridge/exchange';
const label = `POST ${path} (Firebase ID token, RS256, warm key cache, 32 conn.)`;
const goal = '≥ 0.6 ×';
const bareGoal = '≥ 0.7 ×';
const connections = 32;
const users = 2000;
const firebase = kindCases.find((kind) => kind.name === 'firebase')!;

/**
 * Exchanges of fresh Firebase ID tokens (each spent once) for imported users, with the fake provider's keys already
 * cached, against the same tokens verified in this process with jose and a local key set, as many at once as
 * there are cores (twice over), with no HTTP and no database.
 */
export const sessionBridgeScenario: Scenario = {
  name,
  summary: 'one-time exchanges of old-provider tokens vs an in-process RS256 verify of the same tokens',
  async run(context) {
    const { settings, log } = context;
    const issuer = await FakeIssuer.start('RS256');
    try {
      const source = { ...firebase.source(issuer.jwksUrl) };
      const core = await context.core(name, { SESSION_BRIDGE: JSON.stringify({ sources: { fb: source } }) });
      const url = core.server.url;
      if (!(await routeExists(url, 'GET', '/session-bridge/status'))) return [skippedRow(name, label, goal, 'route not implemented yet')];
      await core.pool.query(
        `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, password_hash)
         SELECT 'bridge-' || i, 'public', 'emailpassword', 1, 'bridge-' || i || '@bench.example', '$2b$10$' || repeat('a', 53)
         FROM generate_series(0, $1::int - 1) AS i`,
        [users],
      );
      await core.pool.query(
        `INSERT INTO user_id_mappings (user_id, external_user_id) SELECT 'bridge-' || i, 'old-' || i FROM generate_series(0, $1::int - 1) AS i`,
        [users],
      );
      await core.pool.query('ANALYZE');
      // Enough distinct tokens for every round of both comparisons: a token is exchanged once.
      const perRound = settings.seconds * 4000;
      const total = perRound * (2 * settings.rounds + 2);
      log(`  minting ${total} tokens`);
      const now = Math.floor(Date.now() / 1000);
      const tokens = await Promise.all(
        Array.from({ length: total }, (_, n) => issuer.mint({ ...firebase.claims(`old-${n % users}`, now), jti: String(n) })),
      );
      const warm = await postJson(url, path, { source: 'fb', token: tokens[0] });
      if (warm.json.status !== 'OK') throw new Error(`exchange answered ${warm.status} ${JSON.stringify(warm.json)}`);
      const jwks = createLocalJWKSet(await (await fetch(issuer.jwksUrl)).json());
      const options = { algorithms: ['RS256'], issuer: 'https://securetoken.google.com/acme-prod', audience: 'acme-prod' };

      let next = 1;
      const exchanges = (seconds: number) =>
        withCpu(settings.databaseUrl, core.server, () =>
          runLoad({
            url,
            connections,
            seconds,
            maxRequests: Math.min(perRound, tokens.length - next),
            requests: [
              {
                method: 'POST',
                path,
                setupRequest: (request) => ({ ...request, body: JSON.stringify({ source: 'fb', token: tokens[next++] }) }),
              },
            ],
            verifyBody: isOk,
          }),
        );
      const verifies = async (seconds: number): Promise<LoadResult> => {
        let done = 0;
        const started = performance.now();
        const until = started + seconds * 1000;
        const worker = async () => {
          while (performance.now() < until) {
            await jwtVerify(tokens[done++ % tokens.length], jwks, options);
          }
        };
        await Promise.all(Array.from({ length: os.availableParallelism() * 2 }, worker));
        const elapsed = (performance.now() - started) / 1000;
        return { completed: done, seconds: elapsed, perSecond: done / elapsed, p50Ms: 0, p99Ms: 0, failures: 0, statusCounts: {} };
      };

      log('  warm-up');
      await verifies(1);
      await exchanges(1);
      const {
        ceiling,
        core: measured,
        ratio,
        pairs,
      } = await alternate(
        settings.rounds,
        () => verifies(settings.seconds),
        () => exchanges(settings.seconds),
        log,
      );
      const { rows } = await core.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM session_bridge_exchanges');
      const notes = [
        `${rows[0].n} tokens exchanged (each once, for ${users} imported users); the key set was fetched before measuring`,
        `ceiling: jose jwtVerify of the same tokens against a local key set, ${os.availableParallelism() * 2} at once, in the bench process`,
        spreadNote(pairs),
      ];
      if (measured.failures > 0) notes.push(`${measured.failures} failed requests (${JSON.stringify(measured.statusCounts)})`);
      if (measured.cpuPerRequest) notes.push(`CPU per exchange: ${describeCpu('core', measured.cpuPerRequest)}`);

      // The fair ceiling: a bare Fastify route doing the same verify (jose, the key set given once) and the same
      // spend statement, committed, at the same concurrency, on the same tokens (its database is another).
      const bare = await context.bare(name);
      await bare.pool.query(
        `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, password_hash)
         SELECT 'bridge-' || i, 'public', 'emailpassword', 1, 'bridge-' || i || '@bench.example', '$2b$10$' || repeat('a', 53)
         FROM generate_series(0, $1::int - 1) AS i`,
        [users],
      );
      await bare.pool.query(
        `INSERT INTO user_id_mappings (user_id, external_user_id) SELECT 'bridge-' || i, 'old-' || i FROM generate_series(0, $1::int - 1) AS i`,
        [users],
      );
      await bare.pool.query('ANALYZE');
      const keys = await postJson(bare.server.url, '/bridge/keys', { jwks: await (await fetch(issuer.jwksUrl)).json(), ...options });
      if (keys.json.status !== 'OK') throw new Error(`the bare route took no keys: ${keys.status}`);
      let bareNext = 0;
      const bareExchanges = (seconds: number) =>
        withCpu(settings.databaseUrl, bare.server, () =>
          runLoad({
            url: bare.server.url,
            connections,
            seconds,
            maxRequests: Math.min(perRound, tokens.length - bareNext),
            requests: [
              {
                method: 'POST',
                path: '/bridge/exchange',
                setupRequest: (request) => ({ ...request, body: JSON.stringify({ token: tokens[bareNext++] }) }),
              },
            ],
            verifyBody: isOk,
          }),
        );
      await bareExchanges(1);
      const second = await alternate(
        settings.rounds,
        () => bareExchanges(settings.seconds),
        () => exchanges(settings.seconds),
        log,
      );
      const bareFigure = loadFigure(second.ceiling, 'req/s', 0);
      const exchangeFigure = loadFigure(second.core, 'exchanges/s', core.server.peakRssMb());
      const secondNotes = [
        'ceiling: a bare Fastify + pg route verifying the same tokens with jose (key set given once) and running the same spend statement (user by old id, INSERT … ON CONFLICT DO NOTHING, committed)',
        spreadNote(second.pairs),
      ];
      if (second.core.cpuPerRequest) secondNotes.push(`CPU per exchange: ${describeCpu('core', second.core.cpuPerRequest)}`);
      if (second.ceiling.cpuPerRequest) secondNotes.push(`CPU per bare exchange: ${describeCpu('bare', second.ceiling.cpuPerRequest)}`);
      const reference: Row = {
        scenario: `${name}-vs-bare`,
        path: `${label} vs a bare route doing the same verify and spend`,
        status: 'measured',
        core: exchangeFigure,
        ceiling: bareFigure,
        ratio: second.ratio,
        cpuRatio: cpuRatioOf(exchangeFigure, bareFigure),
        goal: bareGoal,
        met: second.ratio >= 0.7 && second.core.failures === 0,
        notes: secondNotes,
        rounds: second.pairs,
      };
      return [
        {
          scenario: name,
          path: label,
          status: 'measured',
          core: loadFigure(measured, 'exchanges/s', core.server.peakRssMb()),
          ceiling: { value: ceiling.perSecond, unit: 'verifies/s', count: ceiling.completed, seconds: ceiling.seconds },
          ratio,
          goal,
          met: ratio >= 0.6 && measured.failures === 0,
          notes,
          rounds: pairs,
        },
        reference,
      ];
    } finally {
      await issuer.close();
    }
  },
};
