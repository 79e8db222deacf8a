import { beforeEach, describe, expect, it } from 'vitest';
import { call, snapshot, truncateAll, useTestApp } from '../../helper.js';
import {
  USER,
  emailPasswordUser,
  expectRejected,
  insertPasswordlessUser,
  mapUserId,
  signIn,
  signUp,
  storedHash,
  tenantNotFound,
} from './fixtures.js';

const APP_SPECIFIC = 'Only public tenantId can call this app specific API';

describe('GET and PUT /recipe/user (email-password)', () => {
  let alice: { id: string; email: string; timeJoined: number };
  const t = useTestApp();
  beforeEach(async () => {
    await truncateAll(t.db);
    const reply = await signUp(t.app, 'alice@example.com', 'alice password');
    alice = { id: reply.json.user.id, email: 'alice@example.com', timeJoined: t.clock.nowMs };
    await insertPasswordlessUser(t.db, 'pl-user', 'pat@example.com', 5);
  });

  const get = (query: Record<string, string>, headers?: Record<string, string>, prefix = '') =>
    call(t.app, 'GET', `${prefix}${USER}`, { query, headers });
  const put = (body: unknown, headers?: Record<string, string>, prefix = '') => call(t.app, 'PUT', `${prefix}${USER}`, { body, headers });

  describe('GET', () => {
    it.each<{ query: Record<string, string>; message: string }>([
      { query: { userId: 'x', email: 'y' }, message: 'Please provide only one of userId or email' },
      { query: {}, message: 'Please provide one of userId or email' },
      { query: { phoneNumber: '+14155552671' }, message: 'Please provide one of userId or email' },
    ])('400 for $query', async ({ query, message }) => {
      await expectRejected(t.db, () => get(query), 400, message);
      await expectRejected(t.db, () => get(query, undefined, '/tenant1'), 400, message);
    });

    it('finds a user by either id and by normalised email', async () => {
      const expected = { status: 'OK', user: emailPasswordUser(alice) };
      expect((await get({ userId: alice.id })).json).toEqual(expected);
      expect((await get({ email: '  ALICE@example.com ' })).json).toEqual(expected);
      await mapUserId(t.db, alice.id, 'legacy-alice');
      const mapped = { status: 'OK', user: emailPasswordUser({ ...alice, id: 'legacy-alice' }) };
      expect((await get({ userId: 'legacy-alice' })).json).toEqual(mapped);
      expect((await get({ userId: alice.id })).json).toEqual(mapped);
    });

    it('answers UNKNOWN_USER_ID_ERROR / UNKNOWN_EMAIL_ERROR for missing and other-recipe users', async () => {
      for (const userId of ['nope', 'pl-user', '']) {
        expect((await get({ userId })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
      }
      for (const email of ['nope@example.com', 'pat@example.com']) {
        expect((await get({ email })).json).toEqual({ status: 'UNKNOWN_EMAIL_ERROR' });
      }
    });

    it('is the handler for no rid, rid emailpassword and any rid other than exactly passwordless/thirdparty', async () => {
      for (const rid of ['emailpassword', 'Passwordless', 'thirdParty', 'session', '']) {
        const reply = await get({ email: 'alice@example.com' }, { rid });
        expect([rid, reply.json.status]).toEqual([rid, 'OK']);
      }
    });

    it('takes the first of repeated query parameters', async () => {
      const reply = await call(t.app, 'GET', `${USER}?email=alice%40example.com&email=other%40example.com`);
      expect(reply.json.status).toBe('OK');
    });

    it('is app-scoped by userId and tenant-scoped by email', async () => {
      await expectRejected(t.db, () => get({ userId: alice.id }, undefined, '/tenant1'), 403, APP_SPECIFIC);
      expect((await get({ userId: alice.id }, { 'cdi-version': '4.0' }, '/tenant1')).json.status).toBe('OK');
      await expectRejected(t.db, () => get({ email: alice.email }, undefined, '/tenant1'), 400, tenantNotFound('public', 'tenant1'));
      await expectRejected(t.db, () => get({ userId: alice.id }, undefined, '/appid-a1'), 400, tenantNotFound('a1', 'public'));
    });

    it.each(['2.21', '3.0', '5.0'])('answers the user shape of cdi-version %s', async (version) => {
      expect((await get({ userId: alice.id }, { 'cdi-version': version })).json).toEqual({
        status: 'OK',
        user: emailPasswordUser(alice, version),
      });
    });
  });

  describe('PUT', () => {
    it.each([
      { description: 'no id', body: { email: 'x@example.com' }, message: "Field name 'recipeUserId' is invalid in JSON input" },
      { description: 'no id and a bad email', body: { email: 5 }, message: "Field name 'recipeUserId' is invalid in JSON input" },
      {
        description: 'recipeUserId null',
        body: { recipeUserId: null, email: 'x@example.com' },
        message: "Field name 'recipeUserId' is invalid in JSON input",
      },
      {
        description: 'recipeUserId a number',
        body: { recipeUserId: 1, email: 'x@example.com' },
        message: "Field name 'recipeUserId' is invalid in JSON input",
      },
      {
        description: 'userId fallback a number',
        body: { userId: 1, email: 'x@example.com' },
        message: "Field name 'userId' is invalid in JSON input",
      },
      { description: 'email null', body: { recipeUserId: 'u', email: null }, message: "Field name 'email' is invalid in JSON input" },
      { description: 'email a number', body: { recipeUserId: 'u', email: 5 }, message: "Field name 'email' is invalid in JSON input" },
      {
        description: 'password null',
        body: { recipeUserId: 'u', password: null },
        message: "Field name 'password' is invalid in JSON input",
      },
      {
        description: 'password an array',
        body: { recipeUserId: 'u', password: ['x'] },
        message: "Field name 'password' is invalid in JSON input",
      },
      { description: 'neither email nor password', body: { recipeUserId: 'u' }, message: 'You have to provide either email or password.' },
      { description: 'not an object', body: '[1]', message: 'Invalid Json Input' },
      { description: 'no body', body: undefined, message: 'Invalid Json Input' },
    ])('400 for $description, writing nothing', async ({ body, message }) => {
      await expectRejected(t.db, () => put(body), 400, message);
    });

    it('names userId when no id is given below cdi-version 4.0', async () => {
      await expectRejected(
        t.db,
        () => put({ email: 'x@example.com' }, { 'cdi-version': '3.0' }),
        400,
        "Field name 'userId' is invalid in JSON input",
      );
    });

    it('checks the input before the app scope', async () => {
      await expectRejected(
        t.db,
        () => put({ recipeUserId: alice.id }, undefined, '/tenant1'),
        400,
        'You have to provide either email or password.',
      );
      await expectRejected(t.db, () => put({ recipeUserId: alice.id, email: 'n@x.com' }, undefined, '/tenant1'), 403, APP_SPECIFIC);
      await expectRejected(
        t.db,
        () => put({ recipeUserId: alice.id, email: 'n@x.com' }, undefined, '/appid-a1'),
        400,
        tenantNotFound('a1', 'public'),
      );
    });

    it('changes the email (normalised); the new email is unverified and signs in, the old one does not', async () => {
      await t.db.pool.query('INSERT INTO email_verifications (user_id, email) VALUES ($1, $2)', [alice.id, alice.email]);
      expect((await put({ recipeUserId: alice.id, email: ' Alice.New@Example.com' })).json).toEqual({ status: 'OK' });
      expect((await get({ userId: alice.id })).json).toEqual({
        status: 'OK',
        user: emailPasswordUser({ ...alice, email: 'alice.new@example.com' }),
      });
      expect((await signIn(t.app, 'alice.new@example.com', 'alice password')).json.status).toBe('OK');
      expect((await signIn(t.app, 'alice@example.com', 'alice password')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    });

    it('changes the password with the configured algorithm', async () => {
      const before = await storedHash(t.db, alice.email);
      expect((await put({ recipeUserId: alice.id, password: 'new password' })).json).toEqual({ status: 'OK' });
      const after = await storedHash(t.db, alice.email);
      expect(after).toMatch(/^\$2b\$04\$/);
      expect(after).not.toBe(before);
      expect((await signIn(t.app, alice.email, 'new password')).json.status).toBe('OK');
      expect((await signIn(t.app, alice.email, 'alice password')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    });

    it('changes both at once, by external id, by the userId fallback, and lets recipeUserId win', async () => {
      await mapUserId(t.db, alice.id, 'legacy-alice');
      expect((await put({ recipeUserId: 'legacy-alice', email: 'a2@example.com', password: 'p2' })).json).toEqual({ status: 'OK' });
      expect((await signIn(t.app, 'a2@example.com', 'p2')).json.status).toBe('OK');
      expect((await put({ userId: alice.id, email: 'a3@example.com' })).json).toEqual({ status: 'OK' });
      expect((await put({ recipeUserId: alice.id, userId: 'someone-else', email: 'a4@example.com' })).json).toEqual({ status: 'OK' });
      expect((await put({ recipeUserId: 'nope', userId: 42, email: 'a5@example.com' })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
      expect((await put({ userId: alice.id, email: 'a6@example.com' }, { 'cdi-version': '3.0' })).json).toEqual({ status: 'OK' });
      expect((await get({ userId: alice.id })).json.user.emails).toEqual(['a6@example.com']);
    });

    it('answers UNKNOWN_USER_ID_ERROR for an unknown user, a 400 naming the rid header for a passwordless one, changing nothing', async () => {
      const before = await snapshot(t.db);
      const unknown = await put({ recipeUserId: 'nope', email: 'z@example.com', password: 'z' });
      expect(unknown.json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
      const passwordless = await put({ recipeUserId: 'pl-user', email: 'z@example.com', password: 'z' });
      const ridRequired = "Header 'rid: passwordless' is required: the user is a passwordless user\n";
      expect([passwordless.statusCode, passwordless.body]).toEqual([400, ridRequired]);
      expect(await snapshot(t.db)).toEqual(before);
    });

    it('answers EMAIL_ALREADY_EXISTS_ERROR for an email of another email-password user, changing nothing', async () => {
      const bob = (await signUp(t.app, 'bob@example.com', 'bob password')).json.user;
      const before = await snapshot(t.db);
      const reply = await put({ recipeUserId: bob.id, email: 'ALICE@example.com', password: 'changed' });
      expect([reply.statusCode, reply.json]).toEqual([200, { status: 'EMAIL_ALREADY_EXISTS_ERROR' }]);
      expect(await snapshot(t.db)).toEqual(before);
      expect((await put({ recipeUserId: alice.id, email: 'pat@example.com' })).json).toEqual({ status: 'OK' });
      expect((await put({ recipeUserId: alice.id, email: 'pat@example.com' })).json).toEqual({ status: 'OK' });
    });

    it('lets exactly one of 10 concurrent updates to the same new email win, never a 500', async () => {
      const ids = [];
      for (let i = 0; i < 10; i++) ids.push((await signUp(t.app, `user${i}@example.com`, 'pw')).json.user.id);
      const replies = await Promise.all(ids.map((recipeUserId) => put({ recipeUserId, email: 'wanted@example.com' })));
      expect(replies.map((reply) => reply.statusCode)).toEqual(ids.map(() => 200));
      const statuses = replies.map((reply) => reply.json.status);
      expect(statuses.filter((status) => status === 'OK')).toHaveLength(1);
      expect(statuses.filter((status) => status === 'EMAIL_ALREADY_EXISTS_ERROR')).toHaveLength(9);
    });
  });
});
