import { describe, expect, it } from 'vitest';
import { call, countRows, snapshot, truncateAll, useTestApp } from '../../helper.js';
import { expectedLegacyUser, expectedUser, mapUser, type StoredUser } from '../../users/fixtures.js';

const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

describe('POST /recipe/signinup (third party)', () => {
  const t = useTestApp({}, { truncateEach: true });

  const signInUp = (body: unknown, headers: Record<string, string> = {}, url = '/recipe/signinup') =>
    call(t.app, 'POST', url, { body, headers });

  function stored(userId: string, email: string, thirdPartyUserId = 'g-1', thirdPartyId = 'google'): StoredUser {
    return {
      userId,
      tenantId: 'public',
      recipeId: 'thirdparty',
      timeJoined: t.clock.nowMs,
      email,
      phoneNumber: null,
      thirdPartyId,
      thirdPartyUserId,
    };
  }

  async function verifications() {
    return (await t.db.pool.query('SELECT user_id, email FROM email_verifications ORDER BY email')).rows;
  }

  it('creates a user from the seed request (no isVerified, no cdi-version) and signs it in afterwards', async () => {
    const first = await signInUp({ thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'A@Example.com ' } });
    expect(first.statusCode).toBe(200);
    const userId = first.json.user.id;
    expect(userId).toEqual(uuid);
    const user = expectedUser(stored(userId, 'a@example.com'), { verified: false });
    expect(first.json).toEqual({ status: 'OK', createdNewUser: true, user, recipeUserId: userId });

    t.clock.advance(60_000);
    const second = await signInUp({ thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'a@example.com' } });
    expect(second.json).toEqual({ status: 'OK', createdNewUser: false, user, recipeUserId: userId });
    const { rows } = await t.db.pool.query(
      'SELECT user_id, recipe_id, email, third_party_id, third_party_user_id, time_joined, password_hash FROM users',
    );
    expect(rows).toEqual([
      {
        user_id: userId,
        recipe_id: 'thirdparty',
        email: 'a@example.com',
        third_party_id: 'google',
        third_party_user_id: 'g-1',
        time_joined: user.timeJoined,
        password_hash: null,
      },
    ]);
    expect(await verifications()).toEqual([]);
  });

  it('takes thirdPartyId and thirdPartyUserId verbatim: a different case is a different account', async () => {
    const lower = await signInUp({ thirdPartyId: 'google', thirdPartyUserId: 'abc', email: { id: 'a@example.com' } });
    const upper = await signInUp({ thirdPartyId: 'Google', thirdPartyUserId: 'ABC', email: { id: 'a@example.com' } });
    expect([lower.json.createdNewUser, upper.json.createdNewUser]).toEqual([true, true]);
    expect(upper.json.user.thirdParty).toEqual([{ id: 'Google', userId: 'ABC' }]);
    expect(await countRows(t.db, 'users')).toBe(2);
  });

  it('updates a changed email on sign-in; the new email is unverified until isVerified is true', async () => {
    const first = await signInUp({ thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'old@example.com', isVerified: true } });
    const userId = first.json.user.id;
    expect(first.json.user.loginMethods[0].verified).toBe(true);

    t.clock.advance(1000);
    const changed = await signInUp({
      thirdPartyId: 'google',
      thirdPartyUserId: 'g-1',
      email: { id: 'new@example.com', isVerified: false },
    });
    const user = { ...stored(userId, 'new@example.com'), timeJoined: first.json.user.timeJoined };
    expect(changed.json).toEqual({
      status: 'OK',
      createdNewUser: false,
      user: expectedUser(user, { verified: false }),
      recipeUserId: userId,
    });

    const verified = await signInUp({
      thirdPartyId: 'google',
      thirdPartyUserId: 'g-1',
      email: { id: 'new@example.com', isVerified: true },
    });
    expect(verified.json.user).toEqual(expectedUser(user, { verified: true }));
    expect(await verifications()).toEqual([
      { user_id: userId, email: 'new@example.com' },
      { user_id: userId, email: 'old@example.com' },
    ]);
  });

  it('never un-verifies: isVerified false (or missing) after true keeps the email verified', async () => {
    await signInUp({ thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'a@example.com', isVerified: true } });
    const again = await signInUp({ thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'a@example.com', isVerified: false } });
    const missing = await signInUp({ thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'a@example.com' } });
    expect([again.json.user.loginMethods[0].verified, missing.json.user.loginMethods[0].verified]).toEqual([true, true]);
    expect(await countRows(t.db, 'email_verifications')).toBe(1);
  });

  it('answers with the external id once the user is mapped', async () => {
    const first = await signInUp({ thirdPartyId: 'github', thirdPartyUserId: '42', email: { id: 'a@example.com' } });
    await mapUser(t.db, first.json.user.id, 'legacy-42');
    const again = await signInUp({ thirdPartyId: 'github', thirdPartyUserId: '42', email: { id: 'a@example.com' } });
    const user = { ...stored(first.json.user.id, 'a@example.com', '42', 'github'), timeJoined: first.json.user.timeJoined };
    expect(again.json).toEqual({
      status: 'OK',
      createdNewUser: false,
      user: expectedUser(user, { externalId: 'legacy-42' }),
      recipeUserId: 'legacy-42',
    });
  });

  it('ignores isVerified from cdi 2.8 to 3.x and answers the legacy shape without recipeUserId', async () => {
    for (const version of ['2.8', '3.0']) {
      await truncateAll(t.db);
      const body = { thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'a@example.com', isVerified: true } };
      const reply = await signInUp(body, { 'cdi-version': version });
      const user = stored(reply.json.user.id, 'a@example.com');
      expect(reply.json).toEqual({ status: 'OK', createdNewUser: true, user: expectedLegacyUser(user, { tenantIds: version === '3.0' }) });
      expect(await countRows(t.db, 'email_verifications')).toBe(0);
    }
  });

  it('omits webauthn below cdi 5.3', async () => {
    const reply = await signInUp(
      { thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'a@example.com' } },
      { 'cdi-version': '5.2' },
    );
    expect(reply.json.user).toEqual(expectedUser(stored(reply.json.user.id, 'a@example.com'), { webauthn: false }));
  });

  it('creates exactly one user when first sign-ins for one account race', async () => {
    const body = { thirdPartyId: 'google', thirdPartyUserId: 'race', email: { id: 'race@example.com', isVerified: true } };
    const replies = await Promise.all(Array.from({ length: 12 }, () => signInUp(body)));
    expect(replies.map((reply) => reply.statusCode)).toEqual(Array(12).fill(200));
    expect(replies.filter((reply) => reply.json.createdNewUser)).toHaveLength(1);
    expect(new Set(replies.map((reply) => reply.json.user.id)).size).toBe(1);
    expect(await countRows(t.db, 'users')).toBe(1);
    expect(await countRows(t.db, 'email_verifications')).toBe(1);
  });

  it('serialises concurrent email changes of one account: the stored email is one of them', async () => {
    await signInUp({ thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'start@example.com' } });
    const emails = Array.from({ length: 8 }, (_, i) => `e${i}@example.com`);
    const replies = await Promise.all(
      emails.map((email) => signInUp({ thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: email } })),
    );
    expect(replies.map((reply) => [reply.statusCode, reply.json.createdNewUser])).toEqual(Array(8).fill([200, false]));
    const { rows } = await t.db.pool.query('SELECT email FROM users');
    expect(emails).toContain(rows[0].email);
  });

  it('accepts values at the length limits, counted in code points', async () => {
    const body = { thirdPartyId: '😀'.repeat(28), thirdPartyUserId: 'u'.repeat(256), email: { id: `${'a'.repeat(244)}@example.com` } };
    const reply = await signInUp(body);
    expect([reply.statusCode, reply.json.createdNewUser]).toEqual([200, true]);
  });

  const valid = { thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'a@example.com' } };
  it.each([
    [
      'thirdPartyId missing',
      { thirdPartyUserId: 'g-1', email: { id: 'a@example.com' } },
      "Field name 'thirdPartyId' is invalid in JSON input",
    ],
    ['thirdPartyId a number', { ...valid, thirdPartyId: 5 }, "Field name 'thirdPartyId' is invalid in JSON input"],
    ['thirdPartyId null', { ...valid, thirdPartyId: null }, "Field name 'thirdPartyId' is invalid in JSON input"],
    [
      'thirdPartyUserId missing',
      { thirdPartyId: 'google', email: { id: 'a@example.com' } },
      "Field name 'thirdPartyUserId' is invalid in JSON input",
    ],
    ['thirdPartyUserId an array', { ...valid, thirdPartyUserId: ['g-1'] }, "Field name 'thirdPartyUserId' is invalid in JSON input"],
    ['email missing', { thirdPartyId: 'google', thirdPartyUserId: 'g-1' }, "Field name 'email' is invalid in JSON input"],
    ['email a string', { ...valid, email: 'a@example.com' }, "Field name 'email' is invalid in JSON input"],
    ['email null', { ...valid, email: null }, "Field name 'email' is invalid in JSON input"],
    ['email.id missing', { ...valid, email: { isVerified: true } }, "Field name 'id' is invalid in JSON input"],
    ['email.id a number', { ...valid, email: { id: 1 } }, "Field name 'id' is invalid in JSON input"],
    [
      'isVerified a string',
      { ...valid, email: { id: 'a@example.com', isVerified: 'true' } },
      "Field name 'isVerified' is invalid in JSON input",
    ],
    [
      'isVerified a number',
      { ...valid, email: { id: 'a@example.com', isVerified: 1 } },
      "Field name 'isVerified' is invalid in JSON input",
    ],
    ['isVerified null', { ...valid, email: { id: 'a@example.com', isVerified: null } }, "Field name 'isVerified' is invalid in JSON input"],
    ['body an array', [valid], 'Invalid Json Input'],
    ['body malformed', '{"thirdPartyId":', 'Invalid Json Input: unexpected end of input at line 1, column 17'],
    ['thirdPartyId too long', { ...valid, thirdPartyId: 'g'.repeat(29) }, 'thirdPartyId is too long. Max length is 28.'],
    ['thirdPartyUserId too long', { ...valid, thirdPartyUserId: 'u'.repeat(257) }, 'thirdPartyUserId is too long. Max length is 256.'],
    ['email too long', { ...valid, email: { id: `${'a'.repeat(245)}@example.com` } }, 'email is too long. Max length is 256.'],
  ])('rejects %s with 400 and writes nothing', async (_name, body, message) => {
    const before = await snapshot(t.db);
    const reply = await signInUp(body);
    expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('checks the email length after normalisation (surrounding spaces do not count)', async () => {
    const reply = await signInUp({ ...valid, email: { id: `  ${'a'.repeat(244)}@example.com  ` } });
    expect(reply.statusCode).toBe(200);
  });

  it('rejects a tenant other than public after validation, writing nothing', async () => {
    const before = await snapshot(t.db);
    const reply = await signInUp(valid, {}, '/tenant1/recipe/signinup');
    expect([reply.statusCode, reply.body.trim()]).toEqual([
      400,
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, tenant1)',
    ]);
    expect((await signInUp({}, {}, '/tenant1/recipe/signinup')).body.trim()).toBe("Field name 'thirdPartyId' is invalid in JSON input");
    expect(await snapshot(t.db)).toEqual(before);
  });
});
