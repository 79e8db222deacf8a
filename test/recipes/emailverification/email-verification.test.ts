import crypto from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { call, countRows, truncateAll, useTestApp } from '../../helper.js';
import { emailPasswordUser, expectRejected, mapUserId, signUp, tenantNotFound, USER } from '../emailpassword/fixtures.js';

const TOKEN = '/recipe/user/email/verify/token';
const VERIFY = '/recipe/user/email/verify';
const UNVERIFY = '/recipe/user/email/verify/remove';
const REVOKE = '/recipe/user/email/verify/token/remove';
const APP_SPECIFIC = 'Only public tenantId can call this app specific API';

describe('email-verification routes', () => {
  let alice: { id: string; email: string; timeJoined: number };
  const t = useTestApp();
  beforeEach(async () => {
    await truncateAll(t.db);
    const reply = await signUp(t.app, 'alice@example.com', 'alice password');
    alice = { id: reply.json.user.id, email: 'alice@example.com', timeJoined: t.clock.nowMs };
  });

  const post = (url: string, body: unknown, prefix = '') => call(t.app, 'POST', `${prefix}${url}`, { body });
  const createToken = (userId: string, email: string) => post(TOKEN, { userId, email });
  const verify = (token: string) => post(VERIFY, { method: 'token', token });
  const isVerified = async (userId: string, email: string) => (await call(t.app, 'GET', VERIFY, { query: { userId, email } })).json;
  const tokenRows = async () =>
    (await t.db.pool.query('SELECT token_hash, user_id, email, expires_at FROM email_verification_tokens ORDER BY expires_at')).rows;
  const verifiedPairs = async () => (await t.db.pool.query('SELECT user_id, email FROM email_verifications ORDER BY email')).rows;
  const sha256 = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

  it('makes a token stored only as its digest, spends it once, and shows the email verified on the user', async () => {
    const created = await createToken(alice.id, alice.email);
    expect(created.json).toEqual({ status: 'OK', token: expect.stringMatching(/^[A-Za-z0-9_-]{64}$/) });
    const token = created.json.token as string;
    expect(await tokenRows()).toEqual([
      { token_hash: sha256(token), user_id: alice.id, email: alice.email, expires_at: t.clock.nowMs + 86_400_000 },
    ]);
    expect(await isVerified(alice.id, alice.email)).toEqual({ status: 'OK', isVerified: false });

    expect((await verify(token)).json).toEqual({ status: 'OK', userId: alice.id, email: alice.email });
    expect(await verifiedPairs()).toEqual([{ user_id: alice.id, email: alice.email }]);
    expect(await tokenRows()).toEqual([]);
    expect(await isVerified(alice.id, alice.email)).toEqual({ status: 'OK', isVerified: true });
    expect((await call(t.app, 'GET', USER, { query: { userId: alice.id } })).json).toEqual({
      status: 'OK',
      user: emailPasswordUser({ ...alice, verified: true }),
    });

    expect((await verify(token)).json).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect((await createToken(alice.id, alice.email)).json).toEqual({ status: 'EMAIL_ALREADY_VERIFIED_ERROR' });
    expect(await tokenRows()).toEqual([]);
  });

  it('accepts the external id, answers with it, and keys the pair by the internal id', async () => {
    await mapUserId(t.db, alice.id, 'auth0|alice');
    const token = (await createToken('auth0|alice', alice.email)).json.token as string;
    expect((await tokenRows()).map((row) => row.user_id)).toEqual([alice.id]);
    expect((await verify(token)).json).toEqual({ status: 'OK', userId: 'auth0|alice', email: alice.email });
    expect(await verifiedPairs()).toEqual([{ user_id: alice.id, email: alice.email }]);
    expect(await isVerified('auth0|alice', alice.email)).toEqual({ status: 'OK', isVerified: true });
    expect(await isVerified(alice.id, alice.email)).toEqual({ status: 'OK', isVerified: true });
    expect((await post(UNVERIFY, { userId: 'auth0|alice', email: alice.email })).json).toEqual({ status: 'OK' });
    expect(await verifiedPairs()).toEqual([]);
  });

  it('verifies any email of a user, under the email rules, separately from its own', async () => {
    const token = (await createToken(alice.id, '  Other@Example.COM ')).json.token as string;
    expect((await verify(token)).json).toEqual({ status: 'OK', userId: alice.id, email: 'other@example.com' });
    expect(await isVerified(alice.id, 'OTHER@example.com')).toEqual({ status: 'OK', isVerified: true });
    expect(await isVerified(alice.id, alice.email)).toEqual({ status: 'OK', isVerified: false });
  });

  it('refuses an expired token, and spending it still ends every token of that user and email', async () => {
    const first = (await createToken(alice.id, alice.email)).json.token as string;
    t.clock.advance(1000);
    const second = (await createToken(alice.id, alice.email)).json.token as string;
    const other = (await createToken(alice.id, 'other@example.com')).json.token as string;
    expect(await tokenRows()).toHaveLength(3);

    t.clock.advance(t.config.email_verification_token_lifetime - 1000 + 1);
    expect((await verify(first)).json).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect(await verifiedPairs()).toEqual([]);
    expect((await tokenRows()).map((row) => row.email)).toEqual(['other@example.com']);
    expect((await verify(second)).json).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect((await verify(other)).json).toEqual({ status: 'OK', userId: alice.id, email: 'other@example.com' });
  });

  it('a token is valid up to its last millisecond', async () => {
    const token = (await createToken(alice.id, alice.email)).json.token as string;
    t.clock.advance(t.config.email_verification_token_lifetime);
    expect((await verify(token)).json).toEqual({ status: 'OK', userId: alice.id, email: alice.email });
  });

  it('a token creation sweeps expired tokens of every user', async () => {
    const bob = (await signUp(t.app, 'bob@example.com', 'bob password')).json.user.id as string;
    await createToken(bob, 'bob@example.com');
    await createToken(alice.id, 'old@example.com');
    t.clock.advance(t.config.email_verification_token_lifetime + 1);
    const fresh = (await createToken(alice.id, alice.email)).json.token as string;
    expect(await tokenRows()).toEqual([
      { token_hash: sha256(fresh), user_id: alice.id, email: alice.email, expires_at: t.clock.nowMs + 86_400_000 },
    ]);
  });

  it('two spends of one token at once: exactly one wins', async () => {
    const token = (await createToken(alice.id, alice.email)).json.token as string;
    const answers = await Promise.all(Array.from({ length: 8 }, () => verify(token)));
    const statuses = answers.map((answer) => answer.json.status);
    expect(statuses.filter((status) => status === 'OK')).toHaveLength(1);
    expect(statuses.filter((status) => status === 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR')).toHaveLength(7);
    expect(await verifiedPairs()).toEqual([{ user_id: alice.id, email: alice.email }]);
  });

  it('a user deleted while a token is pending takes its tokens and pairs with it', async () => {
    const token = (await createToken(alice.id, alice.email)).json.token as string;
    await verify((await createToken(alice.id, 'other@example.com')).json.token as string);
    expect((await post('/user/remove', { userId: alice.id })).json).toEqual({ status: 'OK' });
    expect(await countRows(t.db, 'email_verification_tokens')).toBe(0);
    expect(await countRows(t.db, 'email_verifications')).toBe(0);
    expect((await verify(token)).json).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect(await isVerified(alice.id, 'other@example.com')).toEqual({ status: 'OK', isVerified: false });
  });

  it('unverifies and revokes tokens for one (user, email) only; unknown ids answer OK and false', async () => {
    await verify((await createToken(alice.id, alice.email)).json.token as string);
    await createToken(alice.id, 'a@example.com');
    await createToken(alice.id, 'b@example.com');
    expect((await post(REVOKE, { userId: alice.id, email: 'A@example.com' })).json).toEqual({ status: 'OK' });
    expect((await tokenRows()).map((row) => row.email)).toEqual(['b@example.com']);
    expect((await post(UNVERIFY, { userId: alice.id, email: 'b@example.com' })).json).toEqual({ status: 'OK' });
    expect(await verifiedPairs()).toEqual([{ user_id: alice.id, email: alice.email }]);
    expect((await post(UNVERIFY, { userId: alice.id, email: alice.email })).json).toEqual({ status: 'OK' });
    expect(await verifiedPairs()).toEqual([]);
    // Unverifying does not bring a revoked token back, and does not touch the ones left.
    expect((await tokenRows()).map((row) => row.email)).toEqual(['b@example.com']);

    expect((await post(UNVERIFY, { userId: 'nobody', email: alice.email })).json).toEqual({ status: 'OK' });
    expect((await post(REVOKE, { userId: 'nobody', email: alice.email })).json).toEqual({ status: 'OK' });
    expect(await isVerified('nobody', alice.email)).toEqual({ status: 'OK', isVerified: false });
  });

  it.each<{ what: string; send: () => Promise<{ url: string; body?: unknown; query?: Record<string, string> }>; message: string }>([
    {
      what: 'token: no userId',
      send: async () => ({ url: TOKEN, body: { email: 'a@example.com' } }),
      message: "Field name 'userId' is invalid in JSON input",
    },
    {
      what: 'token: userId not a string',
      send: async () => ({ url: TOKEN, body: { userId: 1, email: 'a@example.com' } }),
      message: "Field name 'userId' is invalid in JSON input",
    },
    {
      what: 'token: no email',
      send: async () => ({ url: TOKEN, body: { userId: alice.id } }),
      message: "Field name 'email' is invalid in JSON input",
    },
    {
      what: 'token: unknown user',
      send: async () => ({ url: TOKEN, body: { userId: 'nobody', email: 'a@example.com' } }),
      message: "Field name 'userId' is not the id of a user: an email is verified for an existing user only",
    },
    {
      what: 'token: an email that breaks the rules',
      send: async () => ({ url: TOKEN, body: { userId: alice.id, email: 'not-an-email' } }),
      message: 'email is not a valid email address: it has no @',
    },
    {
      what: 'token: an over-long email',
      send: async () => ({ url: TOKEN, body: { userId: alice.id, email: `${'a'.repeat(250)}@example.com` } }),
      message: 'email is too long. Max length is 256.',
    },
    {
      what: 'verify: no method',
      send: async () => ({ url: VERIFY, body: { token: 'x' } }),
      message: "Field name 'method' is invalid in JSON input",
    },
    {
      what: 'verify: no token',
      send: async () => ({ url: VERIFY, body: { method: 'token' } }),
      message: "Field name 'token' is invalid in JSON input",
    },
    {
      what: 'verify: another method',
      send: async () => ({ url: VERIFY, body: { method: 'link', token: 'x' } }),
      message: "Unsupported method for email verification: 'method' must be 'token'",
    },
    {
      what: 'isVerified: no userId',
      send: async () => ({ url: VERIFY, query: { email: 'a@example.com' } }),
      message: "Field name 'userId' is missing in GET request",
    },
    {
      what: 'isVerified: no email',
      send: async () => ({ url: VERIFY, query: { userId: 'x' } }),
      message: "Field name 'email' is missing in GET request",
    },
    {
      what: 'unverify: no email',
      send: async () => ({ url: UNVERIFY, body: { userId: 'x' } }),
      message: "Field name 'email' is invalid in JSON input",
    },
    {
      what: 'revoke: email not a string',
      send: async () => ({ url: REVOKE, body: { userId: 'x', email: true } }),
      message: "Field name 'email' is invalid in JSON input",
    },
  ])('400 and nothing written: $what', async ({ send, message }) => {
    await createToken(alice.id, 'pending@example.com');
    const { url, body, query } = await send();
    await expectRejected(t.db, () => call(t.app, query ? 'GET' : 'POST', url, { body, query }), 400, message);
  });

  it('tokens are per tenant, verifications app-wide, as in the reference', async () => {
    const body = { userId: alice.id, email: alice.email };
    await expectRejected(t.db, () => post(TOKEN, body, '/tenant1'), 400, tenantNotFound('public', 'tenant1'));
    await expectRejected(t.db, () => post(VERIFY, { method: 'token', token: 'x' }, '/tenant1'), 400, tenantNotFound('public', 'tenant1'));
    await expectRejected(t.db, () => post(REVOKE, body, '/tenant1'), 400, tenantNotFound('public', 'tenant1'));
    await expectRejected(t.db, () => post(UNVERIFY, body, '/tenant1'), 403, APP_SPECIFIC);
    await expectRejected(t.db, () => call(t.app, 'GET', `/tenant1${VERIFY}`, { query: body }), 403, APP_SPECIFIC);
    const token = (await post(TOKEN, body, '/appid-public/public')).json.token as string;
    expect((await post(VERIFY, { method: 'token', token }, '/public')).json).toEqual({
      status: 'OK',
      userId: alice.id,
      email: alice.email,
    });
  });
});
