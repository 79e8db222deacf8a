import bcryptjs from 'bcryptjs';
import { hash as argon2Hash } from '@node-rs/argon2';
import { afterAll, describe, expect, it } from 'vitest';
import { PUBLISHED_SCRYPT, PUBLISHED_SCRYPT_HASH, SIGNER_KEY } from '../hashing/vectors.js';
import { costlyHash, startCore, type CoreProcess } from './support/core-process.js';

// A sign-in storm against accounts whose hashes cost 256 MiB each (the most one verification may allocate) must not
// take the core past its memory budget, nor keep an ordinary user of any algorithm from signing in.
const budgetMb = 512;
const stormMs = Number(process.env.STORM_MS ?? 6000);
const stormClients = 16;

const cores: CoreProcess[] = [];
afterAll(async () => {
  for (const core of cores) await core.stop();
});

async function start(env: Record<string, string>): Promise<CoreProcess> {
  const core = await startCore({ IDP_PASSWORD_HASHING_SIGNER_KEY: SIGNER_KEY, ...env });
  cores.push(core);
  return core;
}

async function importUser(core: CoreProcess, email: string, passwordHash: string): Promise<void> {
  const reply = await core.post('/recipe/user/passwordhash/import', { email, passwordHash });
  expect(reply.status, reply.text).toBe(200);
}

describe('verification storm', () => {
  it(`keeps RSS under budget + 300 MB while ordinary users of every algorithm sign in during the storm`, async () => {
    const core = await start({
      PASSWORD_VERIFICATION_CONCURRENCY: '4',
      PASSWORD_VERIFICATION_MEMORY_BUDGET_MB: String(budgetMb),
      PASSWORD_VERIFICATION_DEADLINE_MS: '60000',
      SIGNIN_FAILURE_MIN_DURATION_MS: '0',
      // An attacker with many addresses and accounts: the limits on failed costly sign-ins never stop this storm.
      COSTLY_SIGNIN_FAILURES_PER_ACCOUNT: '1000000',
      COSTLY_SIGNIN_FAILURES_PER_CLIENT: '1000000',
    });
    const ordinary = [
      { email: 'bcrypt@example.com', password: 'bcrypt pw', hash: bcryptjs.hashSync('bcrypt pw', 10) },
      {
        email: 'argon2@example.com',
        password: 'argon2 pw',
        hash: await argon2Hash('argon2 pw', { memoryCost: 19456, timeCost: 2, parallelism: 1 }),
      },
      { email: 'scrypt@example.com', password: PUBLISHED_SCRYPT.password, hash: PUBLISHED_SCRYPT_HASH },
    ];
    for (const user of ordinary) await importUser(core, user.email, user.hash);
    const hostile = [
      costlyHash.argon2(262_144, 1),
      costlyHash.argon2(262_144, 1),
      costlyHash.argon2(262_144, 1),
      costlyHash.scrypt(17, 16),
      costlyHash.scrypt(16, 32),
    ];
    for (const [index, hash] of hostile.entries()) {
      await importUser(core, `hostile${index}@example.com`, ordinary[0].hash);
      await core.setStoredHash(`hostile${index}@example.com`, hash);
    }
    const idleRss = core.rssMb();

    let peakRss = idleRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, core.rssMb())), 20);
    const stormEnds = Date.now() + stormMs;
    // Requests still waiting when the storm ends are abandoned, which the test does not wait for.
    const abandon = new AbortController();
    let stormAnswers = 0;
    const storm = Array.from({ length: stormClients }, async (_, client) => {
      for (let n = 0; Date.now() < stormEnds; n++) {
        const body = JSON.stringify({ email: `hostile${(client + n) % hostile.length}@example.com`, password: `guess ${client} ${n}` });
        const reply = await fetch(`${core.url}/recipe/signin`, { method: 'POST', body, signal: abandon.signal }).catch(() => undefined);
        if (!reply) return;
        expect(reply.status).toBe(200);
        stormAnswers++;
      }
    });
    const stormTimer = setTimeout(() => abandon.abort(), stormMs);

    await new Promise((resolve) => setTimeout(resolve, 1000));
    // Each ordinary sign-in is answered while the storm still runs, not once it has passed.
    const servedDuringStorm: Record<string, boolean> = {};
    for (const user of ordinary) {
      const reply = await core.post('/recipe/signin', { email: user.email, password: user.password });
      servedDuringStorm[user.email] = Date.now() < stormEnds;
      expect([reply.status, JSON.parse(reply.text).status]).toEqual([200, 'OK']);
    }
    await Promise.all(storm);
    clearTimeout(stormTimer);
    clearInterval(sampler);

    expect(stormAnswers).toBeGreaterThan(0);
    expect(servedDuringStorm).toEqual(Object.fromEntries(ordinary.map((user) => [user.email, true])));
    expect(peakRss, `idle ${idleRss.toFixed(0)} MB`).toBeLessThan(budgetMb + 300);
  }, 120_000);
});

describe('shutdown with a verification in flight', () => {
  it('exits after its grace: waiting sign-ins get 503, a running one a closed connection', async () => {
    const core = await start({
      PASSWORD_VERIFICATION_CONCURRENCY: '1',
      SHUTDOWN_GRACE_MS: '1500',
      SIGNIN_FAILURE_MIN_DURATION_MS: '0',
      BCRYPT_LOG_ROUNDS: '4',
    });
    await importUser(core, 'ordinary@example.com', bcryptjs.hashSync('pw', 4));
    await importUser(core, 'hostile@example.com', bcryptjs.hashSync('pw', 4));
    // About a minute per verification on this machine.
    await core.setStoredHash('hostile@example.com', costlyHash.bcrypt(20));

    const running = core.post('/recipe/signin', { email: 'hostile@example.com', password: 'guess' }).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const waiting = core.post('/recipe/signin', { email: 'ordinary@example.com', password: 'pw' });
    await new Promise((resolve) => setTimeout(resolve, 200));

    core.child.kill('SIGTERM');
    const refused = await waiting;
    expect([refused.status, refused.headers.get('retry-after'), refused.text]).toEqual([
      503,
      '5',
      'Password verification is busy, retry after 5 seconds\n',
    ]);
    await core.exited;
    // The running verification (about a minute) did not hold the exit: its connection was closed unanswered.
    expect(await running).toBeInstanceOf(Error);
    expect(core.output()).toContain('a password verification is still running: killing the process');
  }, 60_000);
});
