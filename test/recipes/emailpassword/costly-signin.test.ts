import bcrypt from 'bcrypt';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectText, useTestApp } from '../../helper.js';

// Failed sign-ins against COSTLY imported hashes (here bcrypt cost 12, four ordinary sign-ins each) are limited per
// account and per client: past the limit the answer is 429 with Retry-After, without verifying, and never a wrong
// password. Ordinary accounts are never limited.

const PASSWORD = 'the right one';
let costlyHash: string;
let ordinaryHash: string;

beforeAll(async () => {
  [costlyHash, ordinaryHash] = await Promise.all([bcrypt.hash(PASSWORD, 12), bcrypt.hash(PASSWORD, 4)]);
});

describe('failed sign-ins against costly hashes', () => {
  const t = useTestApp({ costly_signin_failures_per_account: 3, costly_signin_failures_per_client: 5 }, { truncateEach: true });
  const importUser = async (email: string, passwordHash: string) =>
    expect((await call(t.app, 'POST', '/recipe/user/passwordhash/import', { body: { email, passwordHash } })).json.status).toBe('OK');
  const signIn = (email: string, password: string) => call(t.app, 'POST', '/recipe/signin', { body: { email, password } });

  it('are limited per account: the right password then waits too, and is accepted once the minute is over', async () => {
    await importUser('costly@example.com', costlyHash);
    for (let i = 0; i < 3; i++)
      expect((await signIn('costly@example.com', `guess ${i}`)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    const limited = await signIn('costly@example.com', PASSWORD);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(expectText(limited)).toBe('Too many failed sign-in attempts; retry after 60 seconds');
    t.clock.advance(60_000);
    expect((await signIn('costly@example.com', PASSWORD)).json.status).toBe('OK');
    // A right password ends the account's count.
    for (let i = 0; i < 2; i++) await signIn('costly@example.com', `again ${i}`);
    expect((await signIn('costly@example.com', PASSWORD)).json.status).toBe('OK');
  });

  it('are limited per client across accounts; ordinary accounts of the same client are not', async () => {
    for (const n of [1, 2, 3]) await importUser(`costly${n}@example.com`, costlyHash);
    await importUser('ordinary@example.com', ordinaryHash);
    t.clock.advance(60_000);
    for (const n of [1, 2, 1, 2, 1])
      expect((await signIn(`costly${n}@example.com`, 'guess')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    const other = await signIn('costly3@example.com', PASSWORD);
    expect(other.statusCode).toBe(429);
    expect(Number(other.headers['retry-after'])).toBe(60);
    expect((await signIn('ordinary@example.com', 'guess')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect((await signIn('ordinary@example.com', PASSWORD)).json.status).toBe('OK');
    t.clock.advance(60_000);
    expect((await signIn('costly3@example.com', PASSWORD)).json.status).toBe('OK');
  });
});

// Issue 52, item 5: the limit held per process, so three cores allowed three times the tries at one account.
describe('failed sign-ins against costly hashes on two cores', () => {
  const settings = { costly_signin_failures_per_account: 3, costly_signin_failures_per_client: 50 };
  const a = useTestApp(settings);
  const b = useTestApp(settings, { sharing: a });

  it('are counted for the deployment: the cores share one limit per account', async () => {
    const body = { email: 'shared@example.com', passwordHash: costlyHash };
    expect((await call(a.app, 'POST', '/recipe/user/passwordhash/import', { body })).json.status).toBe('OK');
    const signIn = (core: typeof a, password: string) =>
      call(core.app, 'POST', '/recipe/signin', { body: { email: body.email, password } });
    for (const core of [a, b, a]) expect((await signIn(core, 'guess')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    const limited = await signIn(b, PASSWORD);
    // Each test core has a clock of its own, started when it was built: the seconds left differ by that much.
    expect([limited.statusCode, expectText(limited)]).toEqual([
      429,
      expect.stringMatching(/^Too many failed sign-in attempts; retry after \d+ seconds$/),
    ]);
    const { rows } = await a.db.pool.query('SELECT scope, failures FROM signin_failure_windows ORDER BY scope');
    expect(rows).toEqual([
      { scope: 'account', failures: 3 },
      { scope: 'client', failures: 3 },
    ]);
  });
});
