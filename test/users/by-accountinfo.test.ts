import { beforeAll, describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../helper.js';
import { expectedUser, insertUser, mapUser, type StoredUser } from './fixtures.js';

describe('GET /users/by-accountinfo', () => {
  let ep: StoredUser;
  let pwlEmail: StoredUser;
  let pwlPhone: StoredUser;
  let tpGoogle: StoredUser;
  let tpGithub: StoredUser;

  const t = useTestApp();
  // One fixed set of users; every case only reads.
  beforeAll(async () => {
    ep = await insertUser(t.db, { recipeId: 'emailpassword', email: 'a@example.com', timeJoined: 1000 });
    pwlEmail = await insertUser(t.db, { recipeId: 'passwordless', email: 'a@example.com', timeJoined: 3000 });
    pwlPhone = await insertUser(t.db, { recipeId: 'passwordless', email: null, phoneNumber: '+14155552671', timeJoined: 2000 });
    tpGoogle = await insertUser(t.db, {
      recipeId: 'thirdparty',
      email: 'a@example.com',
      thirdPartyId: 'google',
      thirdPartyUserId: 'g-1',
      timeJoined: 4000,
    });
    tpGithub = await insertUser(t.db, {
      recipeId: 'thirdparty',
      email: 'b@example.com',
      thirdPartyId: 'github',
      thirdPartyUserId: 'h-1',
      timeJoined: 500,
    });
    await mapUser(t.db, tpGoogle.userId, 'old-google');
  });

  const find = (query: Record<string, string>, url = '/users/by-accountinfo') => call(t.app, 'GET', url, { query });
  const users = (...list: StoredUser[]) => ({
    status: 'OK',
    users: list.map((user) => expectedUser(user, user === tpGoogle ? { externalId: 'old-google' } : {})),
  });

  it.each([
    [
      'email in every recipe, oldest first, normalised',
      { email: ' A@Example.COM ', doUnionOfAccountInfo: 'false' },
      () => users(ep, pwlEmail, tpGoogle),
    ],
    ['phone number, normalised to E.164', { phoneNumber: '+1 (415) 555-2671', doUnionOfAccountInfo: 'true' }, () => users(pwlPhone)],
    ['third-party account', { thirdPartyId: 'google', thirdPartyUserId: 'g-1', doUnionOfAccountInfo: 'false' }, () => users(tpGoogle)],
    [
      'union of email, phone and account',
      {
        email: 'a@example.com',
        phoneNumber: '+14155552671',
        thirdPartyId: 'github',
        thirdPartyUserId: 'h-1',
        doUnionOfAccountInfo: 'true',
      },
      () => users(tpGithub, ep, pwlPhone, pwlEmail, tpGoogle),
    ],
    [
      'intersection of email and account',
      { email: 'a@example.com', thirdPartyId: 'google', thirdPartyUserId: 'g-1', doUnionOfAccountInfo: 'false' },
      () => users(tpGoogle),
    ],
    [
      'intersection of email and phone (no one has both)',
      { email: 'a@example.com', phoneNumber: '+14155552671', doUnionOfAccountInfo: 'false' },
      () => users(),
    ],
    [
      'intersection of an email and another email account',
      { email: 'b@example.com', thirdPartyId: 'google', thirdPartyUserId: 'g-1', doUnionOfAccountInfo: 'false' },
      () => users(),
    ],
    ['no criteria', { doUnionOfAccountInfo: 'true' }, () => users()],
    ['a webauthn credential, which never matches', { webauthnCredentialId: 'cred', doUnionOfAccountInfo: 'true' }, () => users()],
    [
      'a webauthn credential in a union',
      { webauthnCredentialId: 'cred', email: 'b@example.com', doUnionOfAccountInfo: 'true' },
      () => users(tpGithub),
    ],
    [
      'a webauthn credential in an intersection',
      { webauthnCredentialId: 'cred', email: 'b@example.com', doUnionOfAccountInfo: 'false' },
      () => users(),
    ],
  ])('finds users by %s', async (_name, query, expected) => {
    const reply = await find(query);
    expect([reply.statusCode, reply.json]).toEqual([200, expected()]);
  });

  it.each([
    [{ email: 'a@example.com' }, "Field name 'doUnionOfAccountInfo' is missing in GET request"],
    [{ doUnionOfAccountInfo: 'TRUE' }, "'doUnionOfAccountInfo' should be either 'true' or 'false'"],
    [{ doUnionOfAccountInfo: '' }, "'doUnionOfAccountInfo' should be either 'true' or 'false'"],
    [
      { doUnionOfAccountInfo: 'true', thirdPartyId: 'google' },
      "If 'thirdPartyId' is provided, 'thirdPartyUserId' must also be provided, and vice versa",
    ],
    [
      { doUnionOfAccountInfo: 'false', thirdPartyUserId: 'g-1' },
      "If 'thirdPartyId' is provided, 'thirdPartyUserId' must also be provided, and vice versa",
    ],
  ])('rejects %o with 400', async (query, message) => {
    const before = await snapshot(t.db);
    const reply = await find(query);
    expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('is tenant-scoped, checked after the parameters', async () => {
    const reply = await find({ doUnionOfAccountInfo: 'true' }, '/tenant1/users/by-accountinfo');
    expect([reply.statusCode, reply.body.trim()]).toEqual([
      400,
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, tenant1)',
    ]);
    expect((await find({ doUnionOfAccountInfo: 'x' }, '/tenant1/users/by-accountinfo')).body).toBe(
      "'doUnionOfAccountInfo' should be either 'true' or 'false'\n",
    );
  });
});
