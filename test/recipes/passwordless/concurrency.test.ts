import { describe, expect, it } from 'vitest';
import { call, countRows, useTestApp } from '../../helper.js';
import { consumeWithCode, consumeWithLink, createCode, wrongCode } from './flow-helpers.js';

const statusCounts = (replies: { statusCode: number; json: { status?: string } }[]) => {
  const counts: Record<string, number> = {};
  for (const reply of replies) {
    const key = reply.statusCode === 200 ? reply.json.status! : `HTTP ${reply.statusCode}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};

// Real concurrency against the real database: every request below runs at the same time on its own connection.
describe('passwordless under concurrent requests', () => {
  const t = useTestApp({}, { truncateEach: true });

  it('lets exactly one of 25 concurrent consumes of the same code succeed', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    const replies = await Promise.all(
      Array.from({ length: 25 }, (_, i) => (i % 2 === 0 ? consumeWithLink(t.app, code) : consumeWithCode(t.app, code, code.userInputCode))),
    );
    expect(statusCounts(replies)).toEqual({ OK: 1, RESTART_FLOW_ERROR: 24 });
    expect([await countRows(t.db, 'users'), await countRows(t.db, 'passwordless_devices')]).toEqual([1, 0]);
  });

  it('creates exactly one user when 20 devices of one email sign in at once', async () => {
    const codes = [];
    for (let i = 0; i < 20; i++) codes.push(await createCode(t.app, { email: 'same@example.com' }));
    const replies = await Promise.all(codes.map((code) => consumeWithLink(t.app, code)));
    expect(statusCounts(replies)).toEqual({ OK: 1, RESTART_FLOW_ERROR: 19 });
    expect(replies.find((r) => r.json.status === 'OK')!.json.createdNewUser).toBe(true);
    expect([await countRows(t.db, 'users'), await countRows(t.db, 'passwordless_devices')]).toEqual([1, 0]);
  });

  it('creates one user per email when many emails sign up at once', async () => {
    const codes = [];
    for (let i = 0; i < 20; i++) codes.push(await createCode(t.app, { email: `user${i % 5}@example.com` }));
    const replies = await Promise.all(codes.map((code) => consumeWithCode(t.app, code, code.userInputCode)));
    expect(statusCounts(replies)).toEqual({ OK: 5, RESTART_FLOW_ERROR: 15 });
    expect(await countRows(t.db, 'users')).toBe(5);
  });

  it('counts 20 concurrent wrong codes exactly: failures 1..4, then the device is gone', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => consumeWithCode(t.app, code, wrongCode(code.userInputCode), i % 2 === 0 ? 'consume' : 'check')),
    );
    expect(statusCounts(replies)).toEqual({ INCORRECT_USER_INPUT_CODE_ERROR: 4, RESTART_FLOW_ERROR: 16 });
    const counts = replies.filter((r) => r.json.status !== 'RESTART_FLOW_ERROR').map((r) => r.json.failedCodeInputAttemptCount);
    expect(counts.sort()).toEqual([1, 2, 3, 4]);
    expect(await countRows(t.db, 'passwordless_devices')).toBe(0);
  });

  it('accepts a chosen code once when 20 resends race with it', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(t.app, 'POST', '/recipe/signinup/code', { body: { deviceId: code.deviceId, userInputCode: 'chosen' } }),
      ),
    );
    expect(statusCounts(replies)).toEqual({ OK: 1, USER_INPUT_CODE_ALREADY_USED_ERROR: 19 });
    expect(await countRows(t.db, 'passwordless_codes')).toBe(2);
  });

  it('never fails with a server error when consumes, resends, removals and updates of one user interleave', async () => {
    const id = (await consumeWithLink(t.app, await createCode(t.app, { email: 'a@example.com' }))).json.user.id;
    await call(t.app, 'PUT', '/recipe/user', { headers: { rid: 'passwordless' }, body: { recipeUserId: id, phoneNumber: '+14155552671' } });
    const emailCodes = [];
    const phoneCodes = [];
    for (let i = 0; i < 6; i++) {
      emailCodes.push(await createCode(t.app, { email: 'a@example.com' }));
      phoneCodes.push(await createCode(t.app, { phoneNumber: '+14155552671' }));
    }
    const requests = [
      ...emailCodes.map((code) => consumeWithLink(t.app, code)),
      ...phoneCodes.map((code) => consumeWithCode(t.app, code, code.userInputCode)),
      ...emailCodes.map((code) => call(t.app, 'POST', '/recipe/signinup/code', { body: { deviceId: code.deviceId } })),
      call(t.app, 'POST', '/recipe/signinup/codes/remove', { body: { email: 'a@example.com' } }),
      call(t.app, 'POST', '/recipe/signinup/code/remove', { body: { preAuthSessionId: phoneCodes[5].preAuthSessionId } }),
      call(t.app, 'PUT', '/recipe/user', {
        headers: { rid: 'passwordless' },
        body: { recipeUserId: id, email: 'a@example.com', phoneNumber: '+14155550000' },
      }),
      t.app.services.passwordless.deleteExpiredDevices(),
    ];
    const replies = (await Promise.all(requests)).filter((r): r is Awaited<ReturnType<typeof call>> => typeof r === 'object');
    expect(replies.every((r) => r.statusCode === 200)).toBe(true);
    expect(await countRows(t.db, 'users')).toBe(1);
  });

  // A user created by a flow that does not take the contact lock (bulk import, another core) wins the race.
  describe('when another writer creates the same passwordless user in between', () => {
    const waitUntilBlocked = async (fragment: string) => {
      for (let i = 0; i < 5000; i++) {
        const { rows } = await t.db.pool.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1 AND query NOT LIKE '%pg_stat_activity%'",
          [`%${fragment}%`],
        );
        if (rows[0].n > 0) return;
      }
      throw new Error('the request never blocked');
    };
    const insertUncommitted = async (email: string) => {
      const client = await t.db.pool.connect();
      await client.query('BEGIN');
      await client.query(`INSERT INTO users (user_id, recipe_id, time_joined, email) VALUES ('outside', 'passwordless', 1, $1)`, [email]);
      return {
        async commit() {
          await client.query('COMMIT');
          client.release();
        },
      };
    };

    it('consume answers RESTART_FLOW_ERROR, the devices stay deleted and no second user exists', async () => {
      const code = await createCode(t.app, { email: 'race@example.com' });
      const outside = await insertUncommitted('race@example.com');
      const pending = consumeWithLink(t.app, code);
      await waitUntilBlocked("VALUES ($2, $1, 'passwordless', $4, $5) ON CONFLICT DO NOTHING");
      await outside.commit();
      expect((await pending).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
      expect((await t.db.pool.query('SELECT user_id FROM users')).rows).toEqual([{ user_id: 'outside' }]);
      expect(await countRows(t.db, 'passwordless_devices')).toBe(0);
      expect((await consumeWithLink(t.app, await createCode(t.app, { email: 'race@example.com' }))).json.user.id).toBe('outside');
    });

    it('an email update answers EMAIL_ALREADY_EXISTS_ERROR and changes nothing', async () => {
      const id = (await consumeWithLink(t.app, await createCode(t.app, { email: 'a@example.com' }))).json.user.id;
      const outside = await insertUncommitted('race@example.com');
      const pending = call(t.app, 'PUT', '/recipe/user', {
        headers: { rid: 'passwordless' },
        body: { recipeUserId: id, email: 'race@example.com' },
      });
      await waitUntilBlocked('UPDATE users SET email = $2');
      await outside.commit();
      expect((await pending).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
      expect((await t.db.pool.query('SELECT email FROM users WHERE user_id = $1', [id])).rows).toEqual([{ email: 'a@example.com' }]);
    });
  });
});
