import { describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../helper.js';
import { bcryptHash } from '../bulk-import/fixtures.js';

const pl = { rid: 'passwordless' };

// Issue 27, item 7: a lookup or removal with something no user can have answered 400, where the reference (and so
// the SDK) expects "no such user"; the SDK's placeholder emails were refused.
describe('lookups and removals with a value the rules refuse', () => {
  const t = useTestApp({ bulk_import_worker: false }, { truncateEach: true });

  it('answer as the reference does: not found, OK, nothing written', async () => {
    const before = await snapshot(t.db);
    const replies = [
      await call(t.app, 'GET', '/recipe/user', { query: { email: 'notExists' }, headers: pl }),
      await call(t.app, 'GET', '/recipe/user', { query: { phoneNumber: 'notExists' }, headers: pl }),
      await call(t.app, 'POST', '/recipe/signinup/codes/remove', { body: { phoneNumber: 'phone!' } }),
      await call(t.app, 'POST', '/recipe/signinup/codes/remove', { body: { email: 'not an email' } }),
      await call(t.app, 'GET', '/recipe/signinup/codes', { query: { phoneNumber: 'phone!' } }),
      await call(t.app, 'GET', '/recipe/user', { query: { email: 'notExists' } }),
      await call(t.app, 'GET', '/recipe/users/by-email', { query: { email: 'notExists' } }),
      await call(t.app, 'GET', '/users/by-accountinfo', { query: { email: 'notExists', phoneNumber: 'x', doUnionOfAccountInfo: 'true' } }),
    ];
    expect(replies.map((reply) => [reply.statusCode, reply.json])).toEqual([
      [200, { status: 'UNKNOWN_EMAIL_ERROR' }],
      [200, { status: 'UNKNOWN_PHONE_NUMBER_ERROR' }],
      [200, { status: 'OK' }],
      [200, { status: 'OK' }],
      [200, { status: 'OK', devices: [] }],
      [200, { status: 'UNKNOWN_EMAIL_ERROR' }],
      [200, { status: 'OK', users: [] }],
      [200, { status: 'OK', users: [] }],
    ]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('on email verification: not verified, and nothing to remove; creating a token still refuses it', async () => {
    const user = await call(t.app, 'POST', '/recipe/signup', { body: { email: 'ada@example.com', password: 'a password 1' } });
    const userId = user.json.user.id as string;
    const before = await snapshot(t.db);
    const replies = [
      await call(t.app, 'GET', '/recipe/user/email/verify', { query: { userId, email: 'notExists' } }),
      await call(t.app, 'POST', '/recipe/user/email/verify/remove', { body: { userId, email: 'notExists' } }),
      await call(t.app, 'POST', '/recipe/user/email/verify/token/remove', { body: { userId, email: 'notExists' } }),
    ];
    expect(replies.map((reply) => [reply.statusCode, reply.json])).toEqual([
      [200, { status: 'OK', isVerified: false }],
      [200, { status: 'OK' }],
      [200, { status: 'OK' }],
    ]);
    const token = await call(t.app, 'POST', '/recipe/user/email/verify/token', { body: { userId, email: 'notExists' } });
    expect([token.statusCode, token.body]).toEqual([400, 'email is not a valid email address: it has no @\n']);
    expect(await snapshot(t.db)).toEqual(before);
  });
});

describe("the SDK's placeholder emails", () => {
  const t = useTestApp({ bulk_import_worker: false }, { truncateEach: true });

  // A provider's user id that is itself an email makes a local part with an @; the reference's own test uses '@@'.
  const placeholders = [
    'ada@example.com.github@stfakeemail.supertokens.com',
    'user1.google@@stfakeemail.supertokens.com',
    '+14155552671@stfakeemail.supertokens.com',
    'g-1@google.fakeemail.com',
  ];

  it.each(placeholders)('%s is stored and found on every recipe, lower-cased and trimmed like any email', async (placeholder) => {
    const email = ` ${placeholder.toUpperCase()} `;
    const signUp = await call(t.app, 'POST', '/recipe/signup', { body: { email, password: 'a password 1' } });
    expect(signUp.json.user.emails).toEqual([placeholder]);
    const thirdParty = await call(t.app, 'POST', '/recipe/signinup', {
      body: { thirdPartyId: 'github', thirdPartyUserId: 'ada', email: { id: email } },
    });
    expect(thirdParty.json.user.emails).toEqual([placeholder]);
    const code = await call(t.app, 'POST', '/recipe/signinup/code', { body: { email } });
    expect(code.json.status).toBe('OK');
    const imported = await call(t.app, 'POST', '/bulk-import/import', {
      body: {
        loginMethods: [{ recipeId: 'emailpassword', email: `x${placeholder}`, passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' }],
      },
    });
    expect(imported.json.user.emails).toEqual([`x${placeholder}`]);

    const found = await call(t.app, 'GET', '/recipe/user', { query: { email } });
    expect([found.json.status, found.json.user.id]).toEqual(['OK', signUp.json.user.id]);
    const byInfo = await call(t.app, 'GET', '/users/by-accountinfo', { query: { email, doUnionOfAccountInfo: 'true' } });
    expect(byInfo.json.users.map((user: { id: string }) => user.id).sort()).toEqual([signUp.json.user.id, thirdParty.json.user.id].sort());
  });

  it('does not open the exception to other addresses with two @', async () => {
    const reply = await call(t.app, 'POST', '/recipe/signup', { body: { email: 'ada@host@example.com', password: 'a password 1' } });
    expect([reply.statusCode, reply.body]).toEqual([400, 'email is not a valid email address: it has more than one @\n']);
  });
});
