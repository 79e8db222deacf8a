import { beforeEach, describe, expect, it } from 'vitest';
import { call, snapshot, truncateAll, useTestApp } from '../helper.js';

const invalidUsers = 'Data has missing or invalid fields. Please check the users field for more details.';

// What the SDK's MFA recipe reads as the factors a user must complete: a list of factor ids, or refused.
describe('bulk import of _supertokens.requiredSecondaryFactors', () => {
  const t = useTestApp({ bulk_import_worker: false });
  beforeEach(() => truncateAll(t.db));
  const user = (userMetadata: unknown) => ({
    externalUserId: 'ext-9',
    userMetadata,
    totpDevices: [{ secretKey: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ' }],
    loginMethods: [{ recipeId: 'emailpassword', email: 'a@x.com', plainTextPassword: 'pw-12345' }],
  });

  it.each([
    [
      'null',
      { _supertokens: { requiredSecondaryFactors: null } },
      'userMetadata._supertokens.requiredSecondaryFactors should be of type array of string.',
    ],
    [
      'a string',
      { _supertokens: { requiredSecondaryFactors: 'totp' } },
      'userMetadata._supertokens.requiredSecondaryFactors should be of type array of string.',
    ],
    [
      'an object',
      { _supertokens: { requiredSecondaryFactors: {} } },
      'userMetadata._supertokens.requiredSecondaryFactors should be of type array of string.',
    ],
    [
      'a list holding a number',
      { _supertokens: { requiredSecondaryFactors: ['totp', 1] } },
      'userMetadata._supertokens.requiredSecondaryFactors should be of type array of string.',
    ],
    [
      'a list holding a blank id',
      { _supertokens: { requiredSecondaryFactors: [' '] } },
      'userMetadata._supertokens.requiredSecondaryFactors should be of type array of string.',
    ],
    ['_supertokens not an object', { _supertokens: 'totp' }, 'userMetadata._supertokens should be of type object.'],
  ])('refuses %s, naming the field, and stores nothing', async (_what, userMetadata, error) => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [user(userMetadata)] } });
    expect([reply.statusCode, reply.json], reply.body).toEqual([400, { error: invalidUsers, users: [{ index: 0, errors: [error] }] }]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('imports a list of factor ids as given, and adds totp where the import says nothing', async () => {
    const reply = await call(t.app, 'POST', '/bulk-import/users', {
      body: {
        users: [
          user({ _supertokens: { requiredSecondaryFactors: ['totp', 'otp-email'] } }),
          {
            ...user({ plan: 'pro' }),
            externalUserId: 'ext-10',
            loginMethods: [{ recipeId: 'emailpassword', email: 'b@x.com', plainTextPassword: 'pw-12345' }],
          },
        ],
      },
    });
    expect(reply.statusCode, reply.body).toBe(200);
    await t.app.services.bulkImportWorker.processUntilEmpty();
    const metadata = async (userId: string) => (await call(t.app, 'GET', '/recipe/user/metadata', { query: { userId } })).json.metadata;
    expect(await metadata('ext-9')).toEqual({ _supertokens: { requiredSecondaryFactors: ['totp', 'otp-email'] } });
    expect(await metadata('ext-10')).toEqual({ plan: 'pro', _supertokens: { requiredSecondaryFactors: ['totp'] } });
  });
});
