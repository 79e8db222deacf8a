import { formatLazyPointer } from '../../src/hashing/lazy-pointer.js';
import { FakeProvider, fakeSecrets, type FakeAccount } from '../../test/lazy-migration/fake-providers.js';
import { skippedRow } from '../lib/report.js';
import { postJson, routeExists, type BenchContext, type Scenario } from '../lib/scenario.js';

const name = 'lazy-signin';
const sourceLatencyMs = 50;
const users = 200;
const concurrency = 8;
const goal = 'overhead ≤ 20 ms p50';

/**
 * First sign-in of users imported for lazy migration, against a fake old provider on loopback that answers after
 * 50 ms, next to the second sign-in of the same users (a normal sign-in against the adopted hash). The ceiling of a
 * first sign-in is the provider's latency plus a normal sign-in; the overhead is what the core adds on top.
 */
export const lazySigninScenario: Scenario = {
  name,
  summary: `first sign-in of pending users over a ${sourceLatencyMs} ms old provider vs a normal sign-in`,
  async run(context: BenchContext) {
    const accounts: FakeAccount[] = Array.from({ length: users }, (_, i) => ({
      login: `lazy${i}@example.com`,
      password: `pw-${i}-lazy`,
      id: `old-${i}`,
    }));
    const fake = await FakeProvider.start('webhook', accounts);
    fake.latencyMs = sourceLatencyMs;
    try {
      const source = {
        kind: 'webhook',
        url: `${fake.url}/verify-password`,
        headers: { Authorization: `Bearer ${fakeSecrets.hookToken}` },
        hmac_secret: fakeSecrets.hookHmacSecret,
        rate_per_second: 10_000,
        burst: 10_000,
        max_in_flight: 64,
      };
      const core = await context.core(name, { LAZY_MIGRATION: JSON.stringify({ sources: { legacy: source } }) });
      const url = core.server.url;
      if (!(await routeExists(url, 'GET', '/lazy-migration/status'))) return [skippedRow(name, name, goal, 'route not implemented yet')];
      for (const account of accounts) {
        const passwordHash = formatLazyPointer({ source: 'legacy' });
        const reply = await postJson(url, '/recipe/user/passwordhash/import', {
          email: account.login,
          passwordHash,
          hashingAlgorithm: 'lazy',
        });
        if (reply.status !== 200) throw new Error(`import failed: ${reply.status}`);
      }
      context.log(`  ${users} pending users imported; first sign-ins, ${concurrency} at a time`);
      const first = await signInAll(url, accounts);
      const second = await signInAll(url, accounts);
      if (fake.calls !== users) throw new Error(`the old provider was asked ${fake.calls} times for ${users} users`);
      const overhead = first.p50 - (sourceLatencyMs + second.p50);
      return [
        {
          scenario: name,
          path: `POST /recipe/signin, first sign-in of a pending user (old provider ${sourceLatencyMs} ms)`,
          status: 'measured',
          core: { value: first.p50, unit: 'ms p50', p50Ms: first.p50, p99Ms: first.p99, count: users, peakRssMb: core.server.peakRssMb() },
          ceiling: {
            value: sourceLatencyMs + second.p50,
            unit: 'ms p50',
            p50Ms: sourceLatencyMs + second.p50,
            p99Ms: sourceLatencyMs + second.p99,
            count: users,
          },
          ratio: (sourceLatencyMs + second.p50) / first.p50,
          goal,
          met: overhead <= 20 && first.failures === 0,
          notes: [
            `overhead over provider latency + normal sign-in: ${overhead.toFixed(1)} ms at p50`,
            `normal sign-in of the adopted users: p50 ${second.p50.toFixed(1)} ms, p99 ${second.p99.toFixed(1)} ms`,
            `first sign-ins that failed: ${first.failures}`,
          ],
        },
      ];
    } finally {
      await fake.close();
    }
  },
};

async function signInAll(url: string, accounts: FakeAccount[]): Promise<{ p50: number; p99: number; failures: number }> {
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const worker = async () => {
    while (next < accounts.length) {
      const account = accounts[next++];
      const started = performance.now();
      const reply = await postJson(url, '/recipe/signin', { email: account.login, password: account.password });
      latencies.push(performance.now() - started);
      if (reply.json.status !== 'OK') failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { p50: at(0.5), p99: at(0.99), failures };
}
