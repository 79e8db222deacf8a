import bcryptjs from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helper.js';
import { costlyHash } from './support/core-process.js';

// One account hammered with different passwords waits its turn, and past the deadline the caller gets a 503 it can
// act on instead of a request that hangs; the same password sent many times at once costs one verification.
const t = useTestApp({ password_verification_deadline_ms: 300, password_verification_concurrency: 2 }, { truncateEach: true });

async function importWithStoredHash(email: string, storedHash: string): Promise<void> {
  const reply = await t.app.inject({
    method: 'POST',
    url: '/recipe/user/passwordhash/import',
    payload: { email, passwordHash: bcryptjs.hashSync('pw', 4) },
  });
  expect(reply.statusCode).toBe(200);
  await t.db.pool.query('UPDATE users SET password_hash = $1 WHERE email = $2', [storedHash, email]);
}

const signIn = (email: string, password: string) => t.app.inject({ method: 'POST', url: '/recipe/signin', payload: { email, password } });

describe('sign-in queue', () => {
  it('answers 503 with Retry-After once a wait passes the deadline, and keeps serving other accounts', async () => {
    // A second or more per verification, far past the 300 ms deadline.
    await importWithStoredHash('hammered@example.com', costlyHash.argon2(65_536, 24));
    await importWithStoredHash('other@example.com', bcryptjs.hashSync('other pw', 4));
    const scheduler = t.app.services.verificationScheduler;
    const before = scheduler.deadlineRejections;

    // The first guess holds the account's lane before the others are sent, so they all wait behind it whatever
    // order their lookups finish in.
    const first = signIn('hammered@example.com', 'guess 0');
    const started = Date.now();
    while (scheduler.running === 0 && Date.now() - started < 10_000) await new Promise((resolve) => setTimeout(resolve, 5));
    const rest = Array.from({ length: 3 }, (_, n) => signIn('hammered@example.com', `guess ${n + 1}`));
    const other = await signIn('other@example.com', 'other pw');
    expect([other.statusCode, other.json().status]).toEqual([200, 'OK']);
    const answers = await Promise.all([first, ...rest]);

    expect(answers.map((answer) => [answer.statusCode, answer.headers['retry-after'], answer.body])).toEqual([
      [200, undefined, '{"status":"WRONG_CREDENTIALS_ERROR"}\n'],
      ...Array(3).fill([503, '1', 'Password verification is busy, retry after 1 seconds\n']),
    ]);
    expect(scheduler.deadlineRejections - before).toBe(3);
  });

  it('lets concurrent sign-ins with the same password share one verification', async () => {
    // Long enough (about half a second) that every request finds the verification still running.
    await importWithStoredHash('shared@example.com', costlyHash.argon2(65_536, 3));
    const scheduler = t.app.services.verificationScheduler;
    const [started, shared] = [scheduler.startedCount, scheduler.sharedCount];
    const answers = await Promise.all(Array.from({ length: 20 }, () => signIn('shared@example.com', 'same guess')));
    expect(answers.map((answer) => [answer.statusCode, answer.body])).toEqual(
      Array(20).fill([200, '{"status":"WRONG_CREDENTIALS_ERROR"}\n']),
    );
    expect([scheduler.startedCount - started, scheduler.sharedCount - shared]).toEqual([1, 19]);
    expect([scheduler.running, scheduler.queueDepth, scheduler.memoryInUseBytes]).toEqual([0, 0, 0]);
  });
});
