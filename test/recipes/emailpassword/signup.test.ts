import { describe, expect, it } from 'vitest';
import { call, countRows, snapshot, useTestApp } from '../../helper.js';
import { NON_ASCII_PASSWORD } from '../../hashing/vectors.js';
import { SIGNUP, expectRejected, insertPasswordlessUser, signIn, signUp, signedIn, storedHash, tenantNotFound } from './fixtures.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('POST /recipe/signup', () => {
  const t = useTestApp({}, { truncateEach: true });

  it.each([
    { description: 'no fields', body: {}, message: "Field name 'email' is invalid in JSON input" },
    { description: 'email a number, password missing', body: { email: 7 }, message: "Field name 'email' is invalid in JSON input" },
    { description: 'email null', body: { email: null, password: 'pw' }, message: "Field name 'email' is invalid in JSON input" },
    { description: 'password missing', body: { email: 'a@x.com' }, message: "Field name 'password' is invalid in JSON input" },
    { description: 'password null', body: { email: 'a@x.com', password: null }, message: "Field name 'password' is invalid in JSON input" },
    {
      description: 'password a boolean',
      body: { email: 'a@x.com', password: false },
      message: "Field name 'password' is invalid in JSON input",
    },
    { description: 'empty password', body: { email: 'a@x.com', password: '' }, message: 'Password cannot be an empty string' },
  ])('400 for $description, writing nothing', async ({ body, message }) => {
    await expectRejected(t.db, () => call(t.app, 'POST', SIGNUP, { body }), 400, message);
  });

  it('checks an empty password before the tenant, and the tenant before anything is written', async () => {
    const onTenant = (password: string) => () => call(t.app, 'POST', `/tenant1${SIGNUP}`, { body: { email: 'a@x.com', password } });
    await expectRejected(t.db, onTenant(''), 400, 'Password cannot be an empty string');
    await expectRejected(t.db, onTenant('pw'), 400, tenantNotFound('public', 'tenant1'));
  });

  it('creates an unverified user with a bcrypt hash at the configured cost, and it signs in', async () => {
    const reply = await signUp(t.app, '  Alice@Example.com ', 'a password');
    expect(reply.statusCode).toBe(200);
    const id = reply.json.user.id;
    expect(id).toMatch(UUID);
    const user = { id, email: 'alice@example.com', timeJoined: t.clock.nowMs };
    expect(reply.json).toEqual(signedIn(user));
    const { rows } = await t.db.pool.query('SELECT user_id, tenant_id, recipe_id, time_joined, email, password_hash FROM users');
    expect(rows).toEqual([
      {
        user_id: id,
        tenant_id: 'public',
        recipe_id: 'emailpassword',
        time_joined: t.clock.nowMs,
        email: 'alice@example.com',
        password_hash: expect.stringMatching(/^\$2b\$04\$[./A-Za-z0-9]{53}$/),
      },
    ]);
    expect(await countRows(t.db, 'email_verifications')).toBe(0);
    t.clock.advance(1000);
    expect((await signIn(t.app, 'alice@example.com', 'a password')).json).toEqual(signedIn(user));
    expect((await signIn(t.app, 'alice@example.com', 'a passworD')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('signs up and in with a non-ASCII password', async () => {
    const reply = await signUp(t.app, 'unicode@example.com', NON_ASCII_PASSWORD);
    expect((await signIn(t.app, 'unicode@example.com', NON_ASCII_PASSWORD)).json).toEqual(reply.json);
    expect((await signIn(t.app, 'unicode@example.com', NON_ASCII_PASSWORD.normalize('NFD'))).json.status).toBe('WRONG_CREDENTIALS_ERROR');
  });

  it('answers EMAIL_ALREADY_EXISTS_ERROR for a taken email, changing nothing', async () => {
    await signUp(t.app, 'bob@example.com', 'first');
    const before = await snapshot(t.db);
    const reply = await signUp(t.app, 'BOB@example.com ', 'second');
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'EMAIL_ALREADY_EXISTS_ERROR' }]);
    expect(await snapshot(t.db)).toEqual(before);
    expect((await signIn(t.app, 'bob@example.com', 'first')).json.status).toBe('OK');
  });

  it('lets 20 concurrent sign-ups of one email create exactly one user, never a 500', async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => signUp(t.app, 'race@example.com', `password-${i}`)));
    expect(replies.map((reply) => reply.statusCode)).toEqual(replies.map(() => 200));
    const statuses = replies.map((reply) => reply.json.status);
    expect(statuses.filter((status) => status === 'OK')).toHaveLength(1);
    expect(statuses.filter((status) => status === 'EMAIL_ALREADY_EXISTS_ERROR')).toHaveLength(19);
    expect(await countRows(t.db, 'users')).toBe(1);
    const winner = statuses.indexOf('OK');
    expect((await signIn(t.app, 'race@example.com', `password-${winner}`)).json.status).toBe('OK');
  });

  it('does not conflict with a passwordless user of the same email', async () => {
    await insertPasswordlessUser(t.db, 'pl-user', 'carol@example.com', 1);
    expect((await signUp(t.app, 'carol@example.com', 'pw')).json.status).toBe('OK');
    expect(await countRows(t.db, 'users')).toBe(2);
  });

  it.each([
    { email: 'x@stfakeemail.supertokens.com', verified: true },
    { email: ' USER@STFakeEmail.SuperTokens.com', verified: true },
    { email: 'someone@github.fakeemail.com', verified: true },
    { email: 'someone@fakeemail.com', verified: false },
    { email: 'someone@stfakeemail.supertokens.com.evil.org', verified: false },
    { email: 'someone@example.com', verified: false },
  ])('marks placeholder emails verified at sign-up: $email → $verified', async ({ email, verified }) => {
    const reply = await signUp(t.app, email, 'pw');
    const normalised = email.trim().toLowerCase();
    expect(reply.json).toEqual(signedIn({ id: reply.json.user.id, email: normalised, timeJoined: t.clock.nowMs, verified }));
    const { rows } = await t.db.pool.query('SELECT user_id, email FROM email_verifications');
    expect(rows).toEqual(verified ? [{ user_id: reply.json.user.id, email: normalised }] : []);
  });

  it.each(['2.21', '3.0', '4.0', '5.1'])('answers the shapes of cdi-version %s', async (version) => {
    const reply = await signUp(t.app, 'dan@example.com', 'pw', { 'cdi-version': version });
    expect(reply.json).toEqual(signedIn({ id: reply.json.user.id, email: 'dan@example.com', timeJoined: t.clock.nowMs }, version));
  });
});

describe('POST /recipe/signup with ARGON2 configured', () => {
  const t = useTestApp({ password_hashing_alg: 'ARGON2' });

  it('stores an argon2id v19 hash with the configured parameters, and it signs in', async () => {
    const reply = await signUp(t.app, 'argon@example.com', 'pw');
    expect(await storedHash(t.db, 'argon@example.com')).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect((await signIn(t.app, 'argon@example.com', 'pw')).json).toEqual(reply.json);
    expect((await signIn(t.app, 'argon@example.com', 'pW')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });
});
