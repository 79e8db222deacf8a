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
    // About a second per verification, far past the 300 ms deadline.
    await importWithStoredHash('hammered@example.com', costlyHash.argon2(65_536, 6));
    await importWithStoredHash('other@example.com', bcryptjs.hashSync('other pw', 4));
    const before = t.app.services.verificationScheduler.deadlineRejections;

    const storm = Array.from({ length: 4 }, (_, n) => signIn('hammered@example.com', `guess ${n}`));
    const other = await signIn('other@example.com', 'other pw');
    expect([other.statusCode, other.json().status]).toEqual([200, 'OK']);
    const answers = await Promise.all(storm);

    // Which of the four gets the lane first depends on the order their lookups finish.
    const summary = answers.map((answer) => [answer.statusCode, answer.headers['retry-after'], answer.body]).sort();
    expect(summary).toEqual([
      [200, undefined, '{"status":"WRONG_CREDENTIALS_ERROR"}\n'],
      ...Array(3).fill([503, '1', 'Password verification is busy, retry after 1 seconds\n']),
    ]);
    expect(t.app.services.verificationScheduler.deadlineRejections - before).toBe(3);
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
