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
    [
      'bulk metadata (jsonb)',
      'POST',
      '/bulk-import/users',
      {
        users: [
          {
            userMetadata: { note: 'x\u0000' },
            loginMethods: [{ recipeId: 'emailpassword', email: 'n@example.com', passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' }],
          },
        ],
      },
      'note',
    ],
    [
      'lone high surrogate in jsonb',
      'POST',
      '/bulk-import/import',
      { userMetadata: { note: 'x\uD83Dy' }, loginMethods: [{ recipeId: 'passwordless', email: 's@example.com' }] },
      'note',
    ],
    ['lone low surrogate', 'POST', '/recipe/signinup/code', { email: '\uDE00@example.com' }, 'email'],
    [
      'surrogate in a queued user',
      'POST',
      '/bulk-import/users',
      { users: [{ externalUserId: 'x\uDBFF', loginMethods: [] }] },
      'externalUserId',
    ],
  ] as const)('rejects an unstorable character in a body (%s) with the field name', async (_name, method, url, body, field) => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, method, url, { body });
    expect([reply.statusCode, expectText(reply)]).toEqual([400, `Field name '${field}' is invalid in JSON input`]);
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
