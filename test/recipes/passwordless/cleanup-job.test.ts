import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from 'pino';
import { call, countRows, createTestApp, useTestApp } from '../../helper.js';
import { createLogger } from '../../../src/logger.js';
import { startCleanupJob } from '../../../src/recipes/passwordless/cleanup-job.js';
import { createCode } from './flow-helpers.js';

describe('deleting expired passwordless devices', () => {
  const t = useTestApp({ passwordless_code_lifetime: 60_000 }, { truncateEach: true });

  const sweep = () => t.app.services.passwordless.deleteExpiredDevices();
  const remaining = async () =>
    (await t.db.pool.query('SELECT coalesce(email, phone_number) AS c FROM passwordless_devices ORDER BY 1')).rows.map((r) => r.c);

  it('deletes a device once all its codes expired, not a moment earlier', async () => {
    await createCode(t.app, { email: 'a@example.com' });
    t.clock.advance(60_000);
    expect(await sweep()).toBe(0);
    t.clock.advance(1);
    expect(await sweep()).toBe(1);
    expect([await countRows(t.db, 'passwordless_devices'), await countRows(t.db, 'passwordless_codes')]).toEqual([0, 0]);
  });

  it('keeps a device with one live code, expired codes included, so EXPIRED can still be told from INCORRECT', async () => {
    const old = await createCode(t.app, { email: 'a@example.com' });
    await createCode(t.app, { phoneNumber: '+14155552671' });
    t.clock.advance(50_000);
    await createCode(t.app, { deviceId: old.deviceId });
    t.clock.advance(20_000);
    expect(await sweep()).toBe(1);
    expect(await remaining()).toEqual(['a@example.com']);
    expect(await countRows(t.db, 'passwordless_codes')).toBe(2);
    const reply = await call(t.app, 'POST', '/recipe/signinup/code/check', {
      body: { preAuthSessionId: old.preAuthSessionId, deviceId: old.deviceId, userInputCode: old.userInputCode },
    });
    expect(reply.json.status).toBe('EXPIRED_USER_INPUT_CODE_ERROR');
  });
});

// Fake timers stand in for the wall clock here only: the interval itself is what is under test.
describe('the cleanup timer', () => {
  let lines: string[];
  let log: Logger;
  beforeEach(() => {
    lines = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    log = createLogger({ log_level: 'DEBUG' }, sink);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sweeps every interval, never two sweeps at once, and stops', async () => {
    let started = 0;
    let finish: (() => void) | undefined;
    const job = startCleanupJob(
      1000,
      () => {
        started++;
        return new Promise<number>((resolve) => (finish = () => resolve(3)));
      },
      log,
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(started).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toBe(1);
    // A sweep still running when the next tick comes is not doubled.
    await vi.advanceTimersByTimeAsync(3000);
    expect(started).toBe(1);
    finish!();
    await vi.advanceTimersByTimeAsync(1000);
    expect(started).toBe(2);
    const stopped = job.stop();
    finish!();
    await stopped;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(started).toBe(2);
    expect(lines.map((line) => JSON.parse(line)).map(({ deleted, msg }) => ({ deleted, msg }))).toEqual([
      { deleted: 3, msg: 'expired passwordless devices deleted' },
      { deleted: 3, msg: 'expired passwordless devices deleted' },
    ]);
  });

  it('logs a failed sweep and keeps going', async () => {
    const err = new Error('database down');
    let calls = 0;
    const job = startCleanupJob(
      1000,
      async () => {
        calls++;
        throw err;
      },
      log,
    );
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toBe(2);
    expect(lines.map((line) => [JSON.parse(line).msg, JSON.parse(line).err.message])).toEqual([
      ['cleanup of expired passwordless devices failed', 'database down'],
      ['cleanup of expired passwordless devices failed', 'database down'],
    ]);
    await job.stop();
  });

  it('runs on an unref()d timer, so it never keeps the process alive', () => {
    // A real timer to inspect; a spy made over the fake one would put the fake back when mocks are restored after
    // this file, for every later file of the same worker.
    vi.useRealTimers();
    const spy = vi.spyOn(globalThis, 'setInterval');
    const job = startCleanupJob(1000, async () => 0, log);
    const timer = spy.mock.results[0].value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    spy.mockRestore();
    return job.stop();
  });
});

describe('the cleanup job of the running service', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sweeps on the configured interval with the service clock', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const t = await createTestApp({ passwordless_cleanup_interval_seconds: 30, passwordless_code_lifetime: 1000 });
    try {
      await createCode(t.app, { email: 'a@example.com' });
      t.clock.advance(1001);
      vi.advanceTimersByTime(29_999);
      await t.app.services.stop();
      expect(await countRows(t.db, 'passwordless_devices')).toBe(1);
    } finally {
      await t.close();
    }
    const u = await createTestApp({ passwordless_cleanup_interval_seconds: 30, passwordless_code_lifetime: 1000 });
    try {
      await createCode(u.app, { email: 'a@example.com' });
      u.clock.advance(1001);
      vi.advanceTimersByTime(30_000);
      // stop() waits for the sweep the tick started.
      await u.app.services.stop();
      expect(await countRows(u.db, 'passwordless_devices')).toBe(0);
    } finally {
      await u.close();
    }
  });
});
