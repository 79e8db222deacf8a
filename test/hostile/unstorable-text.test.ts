import { describe, expect, it } from 'vitest';
import { call, expectText, snapshot, useTestApp } from '../helper.js';
import { bcryptHash } from './support/routes.js';

// Found by the fuzz test: PostgreSQL cannot store U+0000 (text, jsonb) nor an unpaired surrogate (jsonb), so such a
// value anywhere in an input reached the database and answered 500. In a body it is now a 400 naming its field; a
// query parameter holding a NUL counts as not given.
describe('characters PostgreSQL cannot store', () => {
  const t = useTestApp({ bulk_import_worker: false });

  it.each([
    ['top-level string', 'POST', '/recipe/signup', { email: 'a\u0000b@example.com', password: 'x' }, 'email'],
    ['nested field', 'POST', '/recipe/signinup', { thirdPartyId: 'google', thirdPartyUserId: 'g', email: { id: 'a@b.c\u0000' } }, 'id'],
    ['field name', 'POST', '/recipe/signinup/code', { email: 'a@example.com', 'bad\u0000key': 1 }, 'bad\u0000key'],
    ['array item', 'POST', '/bulk-import/users/remove', { ids: ['ok', 'x\u0000'] }, 'ids'],
    ['user id', 'POST', '/user/remove', { userId: '\u0000' }, 'userId'],
    ['mapping info', 'PUT', '/recipe/userid/external-user-id-info', { userId: 'u', externalUserIdInfo: 'i\u0000' }, 'externalUserIdInfo'],
    ['lone low surrogate', 'POST', '/recipe/signinup/code', { email: '\uDE00@example.com' }, 'email'],
  ] as const)('rejects an unstorable character in a body (%s) with the field name', async (_name, method, url, body, field) => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, method, url, { body });
    expect([reply.statusCode, expectText(reply)]).toEqual([400, `Field name '${field}' is invalid in JSON input`]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  // The bulk routes refuse such a value as that user's error, named by its path, so that a client (the migration
  // command) can drop that user and send the others again, instead of the whole batch failing unnamed.
  it("refuses an unstorable character in a bulk user as that user's error, named by its path", async () => {
    const method = (email: string) => ({ recipeId: 'emailpassword', email, passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' });
    const users = [
      { userMetadata: { note: 'x\u0000' }, loginMethods: [method('n@example.com')] },
      { externalUserId: 'x\uDBFF', loginMethods: [method('s@example.com')] },
      { loginMethods: [method('ok@example.com')] },
    ];
    const before = await snapshot(t.db);
    const refused = await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
    expect([refused.statusCode, refused.json]).toEqual([
      400,
      {
        error: 'Data has missing or invalid fields. Please check the users field for more details.',
        users: [
          { index: 0, errors: ['userMetadata.note holds a NUL character (\\u0000), which the database cannot store.'] },
          { index: 1, errors: ['externalUserId holds a lone surrogate (half of a UTF-16 pair), which the database cannot store.'] },
        ],
      },
    ]);
    expect(await snapshot(t.db)).toEqual(before);
    const single = await call(t.app, 'POST', '/bulk-import/import', {
      body: { userMetadata: { note: 'x\uD83Dy' }, loginMethods: [{ recipeId: 'passwordless', email: 's@example.com' }] },
    });
    expect([single.statusCode, single.json]).toEqual([
      400,
      {
        errors: ['userMetadata.note holds a lone surrogate (half of a UTF-16 pair), which the database cannot store.'],
      },
    ]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('keeps a surrogate pair (an emoji), escaped or not', async () => {
    const reply = await call(t.app, 'POST', '/recipe/signinup/code', { body: '{"email":"\\ud83d\\ude00-😀@example.com"}' });
    expect([reply.statusCode, reply.json.status]).toEqual([200, 'OK']);
    const listed = await call(t.app, 'GET', `/recipe/signinup/codes?email=${encodeURIComponent('😀-😀@example.com')}`);
    expect(listed.json.devices).toHaveLength(1);
  });

  it('keeps a literal backslash-u0000 text, which is no NUL', async () => {
    // (An email may not hold a backslash outside quotes, so a verbatim field carries it.)
    const reply = await call(t.app, 'POST', '/recipe/signinup', {
      body: '{"thirdPartyId":"google","thirdPartyUserId":"a\\\\u0000b","email":{"id":"a@example.com"}}',
    });
    expect([reply.statusCode, reply.json.user.thirdParty]).toEqual([200, [{ id: 'google', userId: 'a\\u0000b' }]]);
  });

  it.each([
    ['/user/id?userId=%00', "Field name 'userId' is missing in GET request"],
    ['/recipe/userid/map?userId=a%00', "Field name 'userId' is missing in GET request"],
    ['/recipe/signinup/codes?email=a%00b', 'Please provide exactly one of email, phoneNumber, deviceId or preAuthSessionId'],
    ['/users/by-accountinfo?email=x&doUnionOfAccountInfo=%00true', "Field name 'doUnionOfAccountInfo' is missing in GET request"],
  ])('treats a query parameter holding a NUL as not given: %s', async (url, message) => {
    const reply = await call(t.app, 'GET', url);
    expect([reply.statusCode, expectText(reply)]).toEqual([400, message]);
  });

  it('answers lookups whose other parameters are fine', async () => {
    const reply = await call(
      t.app,
      'GET',
      '/users/by-accountinfo?email=nobody%40example.com&phoneNumber=%2B1%00&doUnionOfAccountInfo=true',
    );
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'OK', users: [] }]);
  });
});
