import crypto from 'node:crypto';
import { makeCredentials, type Credential } from '../lib/credentials.js';
import type { Row } from '../lib/report.js';
import { postJson, routeExists, type Scenario } from '../lib/scenario.js';
import { insertEmailPasswordUsers } from '../lib/seed.js';
import { median } from '../lib/stats.js';

const name = 'hostile';
const budgetMb = 512;
const timingRounds = 15;
const stormClients = 16;

const randomBase64 = (bytes: number) => crypto.randomBytes(bytes).toString('base64');
// Well-formed 256 MiB hashes (the most one verification may allocate) that no password matches.
const hostileHashes = () => [
  `$argon2id$v=19$m=262144,t=1,p=1$${randomBase64(16).replace(/=+$/, '')}$${randomBase64(32).replace(/=+$/, '')}`,
  `$f_scrypt$${randomBase64(64)}$${randomBase64(8)}$m=17$r=16$s=Bw==`,
];

async function timeSignIn(url: string, email: string, password: string): Promise<number> {
  const started = performance.now();
  const reply = await postJson(url, '/recipe/signin', { email, password });
  if (reply.status !== 200) throw new Error(`sign-in answered ${reply.status}`);
  return performance.now() - started;
}

/** Median time of a wrong password for each kind of account, interleaved round by round. */
async function timingMedians(url: string, accounts: Record<string, string>): Promise<Record<string, number>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(accounts).map((kind) => [kind, []]));
  for (let round = 0; round < timingRounds; round++) {
    for (const [kind, email] of Object.entries(accounts)) times[kind].push(await timeSignIn(url, email, `wrong-${round}`));
  }
  return Object.fromEntries(Object.entries(times).map(([kind, values]) => [kind, median(values)]));
}

export const hostileScenario: Scenario = {
  name,
  summary: 'wrong-password timing per kind of account, and RSS and ordinary sign-ins during a 256 MiB-per-hash storm',
  async run(context): Promise<Row[]> {
    const { settings, log } = context;
    const core = await context.core(name, {
      PASSWORD_VERIFICATION_MEMORY_BUDGET_MB: String(budgetMb),
      PASSWORD_VERIFICATION_DEADLINE_MS: '60000',
    });
    const { url } = core.server;
    if (!(await routeExists(url, 'POST', '/recipe/signin'))) return [];
    log('  hashing passwords');
    const ordinary: Credential[] = [];
    for (const algorithm of ['bcrypt', 'argon2', 'scrypt'] as const) ordinary.push(...(await makeCredentials(algorithm, 1, 1, name)));
    const hostile = hostileHashes().map((hash, index) => ({ email: `hostile-${index}@bench.example`, password: 'x', hash }));
    await insertEmailPasswordUsers(core.pool, [...ordinary, ...hostile]);
    const native = 'native@bench.example';
    await postJson(url, '/recipe/signup', { email: native, password: 'native password' });

    const accounts = {
      unknown: 'nobody@bench.example',
      ...Object.fromEntries(ordinary.map((c) => [c.email.split('-')[1], c.email])),
      native,
    };
    const medians = await timingMedians(url, accounts);
    const values = Object.values(medians);
    const spread = Math.max(...values) / Math.min(...values);
    const mediansText = Object.entries(medians)
      .map(([kind, ms]) => `${kind} ${ms.toFixed(0)} ms`)
      .join(', ');
    log(`  wrong-password medians: ${mediansText}`);

    const idleRss = core.server.rssMb();
    let peakRss = idleRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, core.server.rssMb())), 20);
    const abandon = new AbortController();
    const stormEnds = Date.now() + settings.seconds * 1000;
    const storm = Array.from({ length: stormClients }, async (_, client) => {
      for (let n = 0; Date.now() < stormEnds; n++) {
        const body = JSON.stringify({ email: hostile[(client + n) % hostile.length].email, password: `guess-${client}-${n}` });
        const reply = await fetch(`${url}/recipe/signin`, { method: 'POST', body, signal: abandon.signal }).catch(() => undefined);
        await reply?.text();
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const ordinaryMs: number[] = [];
    while (Date.now() < stormEnds - 500) {
      for (const credential of ordinary) ordinaryMs.push(await timeSignIn(url, credential.email, credential.password));
    }
    abandon.abort();
    await Promise.all(storm);
    clearInterval(sampler);
    const slowest = Math.max(...ordinaryMs);
    log(`  storm: peak RSS ${peakRss.toFixed(0)} MB (idle ${idleRss.toFixed(0)} MB), ordinary sign-ins max ${slowest.toFixed(0)} ms`);

    return [
      {
        scenario: name,
        path: 'wrong password: unknown / imported bcrypt, argon2, scrypt / native, median ms',
        status: 'measured',
        core: { value: spread, unit: '× max/min median' },
        goal: '≤ 1.2 ×',
        met: spread <= 1.2,
        notes: [mediansText, `${timingRounds} rounds, interleaved`],
      },
      {
        scenario: name,
        path: `sign-in storm, 256 MiB hashes, ${stormClients} conn., budget ${budgetMb} MiB`,
        status: 'measured',
        core: { value: peakRss, unit: 'MB peak RSS', peakRssMb: peakRss, count: ordinaryMs.length },
        goal: `< ${budgetMb + 300} MB; ordinary sign-in < 2 s`,
        met: peakRss < budgetMb + 300 && slowest < 2000,
        notes: [
          `idle ${idleRss.toFixed(0)} MB`,
          `ordinary sign-ins during the storm: ${ordinaryMs.length}, median ${median(ordinaryMs).toFixed(0)} ms, max ${slowest.toFixed(0)} ms`,
        ],
      },
    ];
  },
};
