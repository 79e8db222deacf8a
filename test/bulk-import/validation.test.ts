import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { call, snapshot, truncateAll, useTestApp } from '../helper.js';
import { bcryptHash } from './fixtures.js';
import { PasswordHasher } from '../../src/hashing/registry.js';
import { hashingOptionsFromConfig } from '../../src/hashing/options.js';

const invalidUsers = 'Data has missing or invalid fields. Please check the users field for more details.';
const ep = (method: Record<string, unknown> = {}) => ({
  recipeId: 'emailpassword',
  email: 'a@example.com',
  passwordHash: bcryptHash,
  hashingAlgorithm: 'bcrypt',
  ...method,
});
const long = (length: number, prefix = '') => prefix + 'x'.repeat(length - prefix.length);

let hasher: PasswordHasher;
const t = useTestApp({ bulk_import_worker: false });
beforeAll(async () => {
  hasher = new PasswordHasher(hashingOptionsFromConfig(t.config));
});
beforeEach(async () => {
  await truncateAll(t.db);
  await t.db.pool.query("INSERT INTO roles (role) VALUES ('admin'), ('editor')");
});

async function expectUserErrors(user: unknown, errors: string[]) {
  const before = await snapshot(t.db);
  const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [user] } });
  expect([reply.statusCode, reply.json], reply.body).toEqual([400, { error: invalidUsers, users: [{ index: 0, errors }] }]);
  expect(reply.contentType).toBe('application/json; charset=UTF-8');
  expect(await snapshot(t.db)).toEqual(before);
}

// Each row: a user and every error the contract (§10.2) lists for it, in order.
describe('POST /bulk-import/users validation messages', () => {
  const cases: [string, () => unknown, () => string[]][] = [
    ['no loginMethods', () => ({}), () => ['loginMethods is required.']],
    [
      'every top-level key with the wrong type, in order',
      () => ({ externalUserId: 12, userMetadata: 'x', userRoles: {}, totpDevices: 'x', loginMethods: [1] }),
      () => [
        'externalUserId should be of type string.',
        'userMetadata should be of type object.',
        'userRoles should be of type array of object.',
        'totpDevices should be of type array of object.',
        'loginMethods should be of type array of object.',
      ],
    ],
    [
      'a JSON null is a wrong type',
      () => ({ externalUserId: null, loginMethods: [ep()] }),
      () => ['externalUserId should be of type string.'],
    ],
    [
      'a blank string is a wrong type',
      () => ({ externalUserId: ' \t', loginMethods: [ep()] }),
      () => ['externalUserId should be of type string.'],
    ],
    [
      'metadata must be an object, not an array',
      () => ({ userMetadata: [], loginMethods: [ep()] }),
      () => ['userMetadata should be of type object.'],
    ],
    [
      'a totp device without a secret, and one whose hex key is sent as base32',
      () => ({ totpDevices: [{}, { secretKey: '3132333435363738393031323334353637383930' }], loginMethods: [ep()] }),
      () => ['secretKey is required for a totp device.', 'secretKey could not be decoded as base32 for a totp device.'],
    ],
    ['an empty loginMethods', () => ({ loginMethods: [] }), () => ['At least one loginMethod is required.']],
    [
      'two login methods, both primary',
      () => ({ loginMethods: [ep({ isPrimary: true }), ep({ isPrimary: true, email: 'b@example.com' })] }),
      () => ['No two loginMethods can have isPrimary as true.'],
    ],
    [
      'three login methods, all primary: the message once per extra one (AL-11.1)',
      () => ({
        loginMethods: [
          ep({ isPrimary: true }),
          ep({ isPrimary: true, email: 'b@example.com' }),
          ep({ isPrimary: true, email: 'c@example.com' }),
        ],
      }),
      () => ['No two loginMethods can have isPrimary as true.', 'No two loginMethods can have isPrimary as true.'],
    ],
    ['a login method without recipeId', () => ({ loginMethods: [{}] }), () => ['recipeId is required for a loginMethod.']],
    [
      'login-method keys with wrong types (timeJoined has no period)',
      () => ({
        loginMethods: [{ recipeId: 7, tenantIds: ['public', ''], isVerified: 'yes', isPrimary: 1, timeJoinedInMSSinceEpoch: 1.5 }],
      }),
      () => [
        'recipeId should be of type string for a loginMethod.',
        'tenantIds should be of type array of string for a loginMethod.',
        'isVerified should be of type boolean for a loginMethod.',
        'isPrimary should be of type boolean for a loginMethod.',
        'timeJoinedInMSSinceEpoch should be of type integer for a loginMethod',
      ],
    ],
    [
      'an unknown recipe',
      () => ({ loginMethods: [{ recipeId: 'magiclink' }] }),
      () => ['Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!'],
    ],
    [
      'recipe ids are exact',
      () => ({ loginMethods: [ep({ recipeId: 'EmailPassword' })] }),
      () => ['Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!'],
    ],
    [
      'a tenant that does not exist, named as given',
      () => ({ loginMethods: [ep({ tenantIds: ['public', ' Tenant1 '] })] }),
      () => ['Invalid tenantId:  Tenant1  for emailpassword recipe.'],
    ],
    ['an empty tenant list', () => ({ loginMethods: [ep({ tenantIds: [] })] }), () => ["LoginMethod 'emailpassword' has no tenantId"]],
    [
      'timeJoined in the future',
      () => ({ loginMethods: [ep({ timeJoinedInMSSinceEpoch: t.clock.nowMs + 1 })] }),
      () => ['timeJoined cannot be in future for a loginMethod.'],
    ],
    [
      'timeJoined before 1970',
      () => ({ loginMethods: [ep({ timeJoinedInMSSinceEpoch: -1 })] }),
      () => ['timeJoined cannot be < 0 for a loginMethod.'],
    ],
    [
      'email-password without email or password',
      () => ({ loginMethods: [{ recipeId: 'emailpassword' }] }),
      () => [
        'email is required for an emailpassword recipe.',
        'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
      ],
    ],
    [
      'email-password keys with wrong types',
      () => ({ loginMethods: [{ recipeId: 'emailpassword', email: 1, passwordHash: 2, hashingAlgorithm: 3, plainTextPassword: '' }] }),
      () => [
        'email should be of type string for an emailpassword recipe.',
        'passwordHash should be of type string for an emailpassword recipe.',
        'hashingAlgorithm should be of type string for an emailpassword recipe.',
        'plainTextPassword should be of type string for an emailpassword recipe.',
        'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
      ],
    ],
    [
      'a hash without its algorithm',
      () => ({ loginMethods: [ep({ hashingAlgorithm: undefined })] }),
      () => ['Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.'],
    ],
    [
      'an unknown hashing algorithm',
      () => ({ loginMethods: [ep({ hashingAlgorithm: 'md5' })] }),
      () => [
        'Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2 or, idp_scrypt! Also accepted: firebase_scrypt, ' +
          'crypt, phpass, ldap, salted_digest, hmac, pbkdf2, scrypt, aspnet_identity, bcrypt_sha256, lazy.',
      ],
    ],
    [
      'a hash of another algorithm',
      () => ({ loginMethods: [ep({ hashingAlgorithm: 'argon2' })] }),
      () => ['Password hash is in invalid Argon2 format: the hash is in the BCRYPT format; set hashingAlgorithm to bcrypt'],
    ],
    [
      'a truncated bcrypt hash (parsed fully, not only by prefix)',
      () => ({ loginMethods: [ep({ passwordHash: bcryptHash.slice(0, -1) })] }),
      () => [expectedFormatError(bcryptHash.slice(0, -1), 'BCRYPT')],
    ],
    [
      'a hash longer than 2048 characters (the limit both import routes apply)',
      () => ({ loginMethods: [ep({ passwordHash: long(2049, '$2a$10$') })] }),
      () => ['passwordHash is too long. Max length is 2048.', expectedFormatError(long(2049, '$2a$10$'), 'BCRYPT')],
    ],
    [
      'a lazy pointer to a source this core is not configured with (refused as the single import route does)',
      () => ({ loginMethods: [ep({ passwordHash: '$lazy$nowhere', hashingAlgorithm: 'lazy' })] }),
      () => ["Password hash is in invalid Lazy format: unknown source 'nowhere'"],
    ],
    [
      'a NUL character in the metadata (the database cannot store it; named instead of failing the batch)',
      () => ({ userMetadata: { profile: { name: 'a\u0000b' } }, loginMethods: [ep()] }),
      () => ['userMetadata.profile.name holds a NUL character (\\u0000), which the database cannot store.'],
    ],
    [
      'a lone surrogate in a key of the metadata',
      () => ({ userMetadata: { ['x\ud800']: 1 }, loginMethods: [ep()] }),
      () => ['a key of userMetadata holds a lone surrogate (half of a UTF-16 pair), which the database cannot store.'],
    ],
    [
      'an email longer than 255 characters (the message says 256)',
      () => ({ loginMethods: [ep({ email: long(256) })] }),
      () => [`email ${long(256)} is too long. Max length is 256.`],
    ],
    [
      'third party without its fields',
      () => ({ loginMethods: [{ recipeId: 'thirdparty' }] }),
      () => [
        'email is required for a thirdparty recipe.',
        'thirdPartyId is required for a thirdparty recipe.',
        'thirdPartyUserId is required for a thirdparty recipe.',
      ],
    ],
    [
      'third party with wrong types',
      () => ({ loginMethods: [{ recipeId: 'thirdparty', email: true, thirdPartyId: [], thirdPartyUserId: {} }] }),
      () => [
        'email should be of type string for a thirdparty recipe.',
        'thirdPartyId should be of type string for a thirdparty recipe.',
        'thirdPartyUserId should be of type string for a thirdparty recipe.',
      ],
    ],
    [
      'third-party values that are too long',
      () => ({ loginMethods: [{ recipeId: 'thirdparty', email: long(256), thirdPartyId: long(29), thirdPartyUserId: long(257) }] }),
      () => [
        `email ${long(256)} is too long. Max length is 256.`,
        `thirdPartyId ${long(29)} is too long. Max length is 28.`,
        `thirdPartyUserId ${long(257)} is too long. Max length is 256.`,
      ],
    ],
    [
      'passwordless without contact',
      () => ({ loginMethods: [{ recipeId: 'passwordless' }] }),
      () => ['Either email or phoneNumber is required for a passwordless recipe.'],
    ],
    [
      'passwordless with wrong types',
      () => ({ loginMethods: [{ recipeId: 'passwordless', email: 5, phoneNumber: false }] }),
      () => [
        'email should be of type string for a passwordless recipe.',
        'phoneNumber should be of type string for a passwordless recipe.',
        'Either email or phoneNumber is required for a passwordless recipe.',
      ],
    ],
    [
      'a passwordless phone number that is too long',
      () => ({ loginMethods: [{ recipeId: 'passwordless', phoneNumber: long(257) }] }),
      () => [`phoneNumber ${long(257)} is too long. Max length is 256.`],
    ],
    [
      'an external id that is too long',
      () => ({ externalUserId: long(129), loginMethods: [ep()] }),
      () => [`externalUserId ${long(129)} is too long. Max length is 128.`],
    ],
    [
      'user roles without their fields',
      () => ({ userRoles: [{}], loginMethods: [ep()] }),
      () => ['role is required for a user role.', 'tenantIds is required for a user role.'],
    ],
    [
      'user roles with wrong types',
      () => ({ userRoles: [{ role: 1, tenantIds: 'public' }], loginMethods: [ep()] }),
      () => ['role should be of type string for a user role.', 'tenantIds should be of type array of string for a user role.'],
    ],
    [
      'a role that is too long and does not exist',
      () => ({ userRoles: [{ role: long(256), tenantIds: ['public'] }], loginMethods: [ep()] }),
      () => [`role ${long(256)} is too long. Max length is 255.`, `Role ${long(256)} does not exist.`],
    ],
    [
      'a role in a tenant that does not exist',
      () => ({ userRoles: [{ role: 'admin', tenantIds: ['tenant1'] }], loginMethods: [ep()] }),
      () => ['Invalid tenantId: tenant1 for a user role.'],
    ],
    [
      'errors of every section, in the documented order',
      () => ({
        externalUserId: long(129),
        userMetadata: 1,
        userRoles: [{ role: 'ghost', tenantIds: ['public'] }],
        totpDevices: [{}],
        loginMethods: [{ recipeId: 'emailpassword', email: 'a@example.com', plainTextPassword: 'pw', timeJoinedInMSSinceEpoch: -5 }],
      }),
      () => [
        'userMetadata should be of type object.',
        'Role ghost does not exist.',
        'secretKey is required for a totp device.',
        'timeJoined cannot be < 0 for a loginMethod.',
        `externalUserId ${long(129)} is too long. Max length is 128.`,
      ],
    ],
  ];

  it.each(cases)('%s', async (_description, user, errors) => {
    await expectUserErrors(user(), errors());
  });

  it('reports only the invalid users, by index, and stores none of the valid ones', async () => {
    const before = await snapshot(t.db);
    const users = [
      { loginMethods: [ep()] },
      { externalUserId: 'same', loginMethods: [ep({ email: 'b@example.com' })] },
      { loginMethods: [] },
      { externalUserId: 'same', loginMethods: [ep({ email: 'c@example.com' })] },
    ];
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
    expect([reply.statusCode, reply.json]).toEqual([
      400,
      {
        error: invalidUsers,
        users: [
          { index: 2, errors: ['At least one loginMethod is required.'] },
          { index: 3, errors: ['externalUserId same is not unique. It is already used by another user.'] },
        ],
      },
    ]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('accepts existing roles (trimmed), both hash-algorithm spellings and a plain-text password', async () => {
    const users = [
      { userRoles: [{ role: ' admin ', tenantIds: ['public'] }], loginMethods: [ep({ hashingAlgorithm: ' BcRyPt ' })] },
      { loginMethods: [ep({ email: 'b@example.com', passwordHash: undefined, hashingAlgorithm: undefined, plainTextPassword: 'secret' })] },
      { loginMethods: [ep({ email: `${long(243)}@example.com`, timeJoinedInMSSinceEpoch: t.clock.nowMs })] },
    ];
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
    expect(reply.statusCode).toBe(200);
    const { rows } = await t.db.pool.query(
      "SELECT raw_data->'userRoles' AS roles, raw_data->'loginMethods'->0->>'hashingAlgorithm' AS algorithm FROM bulk_import_users",
    );
    expect(rows).toContainEqual({ roles: [{ role: 'admin', tenantIds: ['public'] }], algorithm: 'BCRYPT' });
  });

  it('fails the whole request with 500 for a scrypt-variant hash when no signer key is configured', async () => {
    const before = await snapshot(t.db);
    const hash =
      '$f_scrypt$qZM035es5AXYqavsKD6/rhtxg7t5PhcyRgv5blc3doYbChX8keMfQLq1ra96O2Pf2TP/eZrR5xtPCYN6mX3ESA==$/cj0jC1br5o4+w==$m=14$r=8$s=Bw==';
    const reply = await call(t.app, 'POST', '/bulk-import/users', {
      body: { users: [{ loginMethods: [ep({ passwordHash: hash, hashingAlgorithm: 'firebase_scrypt' })] }] },
    });
    expect([reply.statusCode, reply.body.trim()]).toEqual([
      500,
      "'idp_password_hashing_signer_key' is not configured: set it in config.yaml or IDP_PASSWORD_HASHING_SIGNER_KEY",
    ]);
    expect(await snapshot(t.db)).toEqual(before);
  });
});

function expectedFormatError(hash: string, algorithm: string): string {
  const check = hasher.checkImport(hash, algorithm);
  if (check.status !== 'INVALID') throw new Error(`expected ${hash} to be rejected`);
  return check.message;
}

describe('POST /bulk-import/users body shape', () => {
  it.each([
    ['users missing', {}],
    ['users not an array', { users: { 0: {} } }],
    ['an element that is not an object', { users: [{ loginMethods: [ep()] }, 'x'] }],
    ['a null element', { users: [null] }],
    ['an array element', { users: [[]] }],
  ])('%s: 400 invalid users', async (_description, body) => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body });
    expect([reply.statusCode, reply.body]).toEqual([400, "Field name 'users' is invalid in JSON input\n"]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('refuses more than 10000 users with a JSON body', async () => {
    const before = await snapshot(t.db);
    const users = Array.from({ length: 10001 }, () => ({}));
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
    expect([reply.statusCode, reply.json, reply.contentType]).toEqual([
      400,
      { error: 'You can only add 10000 users at a time.' },
      'application/json; charset=UTF-8',
    ]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('answers an empty list with OK and no users key', async () => {
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [] } });
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'OK' }]);
  });
});

// One set of rules for the two ways a password user is imported: the bulk route and the single import route.
describe('the bulk and single import routes apply the same password-hash rules', () => {
  const key = Buffer.alloc(700, 7);
  const mac = createHmac('sha512', key).update('long-pw').digest('base64');
  // An HMAC-SHA512 with a 700-byte key: ~1,050 characters, valid, over the reference core's 256.
  const longHmac = `$hmac-sha512$${mac}$${key.toString('base64')}`;

  it('both take a valid hash longer than 256 characters, and the user signs in', async () => {
    expect(longHmac.length).toBeGreaterThan(1000);
    const bulk = await call(t.app, 'POST', '/bulk-import/users', {
      query: { importNow: 'true' },
      body: { users: [{ loginMethods: [ep({ email: 'bulk@example.com', passwordHash: longHmac, hashingAlgorithm: 'hmac' })] }] },
    });
    expect(bulk.statusCode).toBe(200);
    const single = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
      body: { email: 'single@example.com', passwordHash: longHmac, hashingAlgorithm: 'HMAC' },
    });
    expect([single.statusCode, single.json.status]).toEqual([200, 'OK']);
    for (const email of ['bulk@example.com', 'single@example.com']) {
      const reply = await call(t.app, 'POST', '/recipe/signin', { body: { email, password: 'long-pw' } });
      expect([email, reply.json.status]).toEqual([email, 'OK']);
    }
  });

  it('both refuse a hash over 2048 characters and a lazy pointer to an unconfigured source, naming the same reason', async () => {
    const before = await snapshot(t.db);
    const tooLong = `$hmac-sha512$${mac}$${Buffer.alloc(1600, 7).toString('base64')}`;
    const single = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
      body: { email: 'single@example.com', passwordHash: tooLong, hashingAlgorithm: 'HMAC' },
    });
    expect([single.statusCode, single.body]).toEqual([400, 'passwordHash is too long. Max length is 2048.\n']);
    const bulk = await call(t.app, 'POST', '/bulk-import/users', {
      body: { users: [{ loginMethods: [ep({ passwordHash: tooLong, hashingAlgorithm: 'hmac' })] }] },
    });
    expect(bulk.json.users[0].errors[0]).toBe('passwordHash is too long. Max length is 2048.');
    const lazySingle = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
      body: { email: 'lazy@example.com', passwordHash: '$lazy$nowhere', hashingAlgorithm: 'lazy' },
    });
    expect([lazySingle.statusCode, lazySingle.body]).toEqual([400, "Password hash is in invalid Lazy format: unknown source 'nowhere'\n"]);
    expect(await snapshot(t.db)).toEqual(before);
  });
});
