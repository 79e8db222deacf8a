import { beforeEach, describe, expect, it } from 'vitest';
import { call, snapshot, truncateAll, useTestApp } from '../helper.js';

const SHA1_BASE32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const SHA1_HEX = '3132333435363738393031323334353637383930';

// Contract M-9 item 11 and M-4.3, M-5.7, M-5.8, M-7: what a migrated user keeps beside its login methods.
describe('bulk import of roles, metadata, TOTP devices and recovery codes', () => {
  const t = useTestApp({ bulk_import_worker: false });
  beforeEach(() => truncateAll(t.db));
  const user = (extra: Record<string, unknown> = {}) => ({
    externalUserId: 'ext-9',
    userMetadata: { plan: 'pro' },
    userRoles: [{ role: 'admin', tenantIds: ['public'] }],
    totpDevices: [{ secretKey: SHA1_BASE32 }],
    recoveryCodes: ['abcd-efgh-ij'],
    loginMethods: [{ recipeId: 'emailpassword', email: 'a@x.com', plainTextPassword: 'pw-12345' }],
    ...extra,
  });
  const enqueue = (body: unknown) => call(t.app, 'POST', '/bulk-import/users', { body });
  const getJson = async (url: string, query: Record<string, string>) => (await call(t.app, 'GET', url, { query })).json;

  it('imports them under the external id, enforces the device and spends a recovery code once', async () => {
    const reply = await enqueue({ roleDefinitions: [{ role: 'admin', permissions: ['read'] }], users: [user()] });
    expect(reply.statusCode).toBe(200);
    const queued = (await t.db.pool.query('SELECT raw_data::text AS raw FROM bulk_import_users')).rows[0].raw as string;
    expect(queued).not.toContain('abcd');
    await t.app.services.bulkImportWorker.processUntilEmpty();
    expect((await t.db.pool.query('SELECT count(*)::int AS n FROM bulk_import_users')).rows[0].n).toBe(0);

    expect(await getJson('/recipe/user/metadata', { userId: 'ext-9' })).toEqual({
      metadata: { plan: 'pro', _supertokens: { requiredSecondaryFactors: ['totp'] } },
      status: 'OK',
    });
    expect(await getJson('/recipe/totp/device/list', { userId: 'ext-9' })).toEqual({
      status: 'OK',
      devices: [{ name: 'TOTP Device 0', period: 30, skew: 1, verified: true }],
    });
    expect(await getJson('/public/recipe/user/roles', { userId: 'ext-9' })).toEqual({ roles: ['admin'], status: 'OK' });
    expect(await getJson('/recipe/role/permissions', { role: 'admin' })).toEqual({ permissions: ['read'], status: 'OK' });

    const stored = (await t.db.pool.query('SELECT user_id, hashing_algorithm, code_hash, used_at FROM recovery_codes')).rows;
    expect(stored).toEqual([
      { user_id: 'ext-9', hashing_algorithm: 'salted-sha256', code_hash: expect.stringMatching(/^[0-9a-f]{64}$/), used_at: null },
    ]);
    const verify = async (code: string) =>
      (await call(t.app, 'POST', '/public/recipe/recoverycodes/verify', { body: { userId: 'ext-9', code } })).json;
    expect(await verify('ABCDEFGHIJ')).toEqual({ status: 'OK', remainingCount: 0 });
    expect(await verify('ABCDEFGHIJ')).toEqual({
      status: 'INVALID_RECOVERY_CODE_ERROR',
      currentNumberOfFailedAttempts: 1,
      maxNumberOfFailedAttempts: 5,
    });

    t.clock.nowMs = 59_000;
    expect((await call(t.app, 'POST', '/public/recipe/totp/verify', { body: { userId: 'ext-9', totp: '287082' } })).json).toEqual({
      status: 'OK',
    });

    // Removing the user removes what hangs off its external id.
    const internalId = (await t.db.pool.query('SELECT user_id FROM user_id_mappings')).rows[0].user_id;
    expect((await call(t.app, 'POST', '/user/remove', { body: { userId: internalId } })).json).toEqual({ status: 'OK' });
    const left = await t.db.pool.query(
      `SELECT (SELECT count(*) FROM user_metadata)::int AS metadata, (SELECT count(*) FROM user_roles)::int AS roles,
              (SELECT count(*) FROM totp_devices)::int AS devices, (SELECT count(*) FROM totp_used_codes)::int AS ledger,
              (SELECT count(*) FROM recovery_codes)::int AS codes`,
    );
    expect(left.rows[0]).toEqual({ metadata: 0, roles: 0, devices: 0, ledger: 0, codes: 0 });
  });

  it('keeps an explicit list of required factors, even an empty one, and can be told not to add it', async () => {
    await enqueue({
      roleDefinitions: [{ role: 'admin' }],
      users: [user({ userMetadata: { _supertokens: { requiredSecondaryFactors: [] } } })],
    });
    await t.app.services.bulkImportWorker.processUntilEmpty();
    expect((await getJson('/recipe/user/metadata', { userId: 'ext-9' })).metadata).toEqual({
      _supertokens: { requiredSecondaryFactors: [] },
    });
  });

  it('reads each device encoding, names devices in list order and keeps algorithm, digits and period', async () => {
    const totpDevices = [
      { secretKey: SHA1_HEX, secretEncoding: 'hex', skew: 0 },
      { secretKey: `otpauth://totp/A:b?secret=${SHA1_BASE32}&digits=8&period=60`, deviceName: ' phone ' },
      { secretKey: '12345678901234567890', secretEncoding: 'raw', algorithm: 'SHA1', digits: 7 },
    ];
    await enqueue({ users: [user({ userRoles: undefined, totpDevices, recoveryCodes: undefined })] });
    await t.app.services.bulkImportWorker.processUntilEmpty();
    const rows = (
      await t.db.pool.query(
        'SELECT user_id, device_name, secret_key, secret_key_id, period, skew, verified, algorithm, digits FROM totp_devices ORDER BY device_name',
      )
    ).rows.map(({ user_id: userId, secret_key_id: secretKeyId, ...row }) => ({
      ...row,
      secret_key: t.app.services.totpSecrets.open(userId, { secretKey: row.secret_key, secretKeyId }),
    }));
    expect(rows).toEqual([
      { device_name: 'TOTP Device 0', secret_key: SHA1_BASE32, period: 30, skew: 0, verified: true, algorithm: 'SHA1', digits: 6 },
      { device_name: 'TOTP Device 2', secret_key: SHA1_BASE32, period: 30, skew: 1, verified: true, algorithm: 'SHA1', digits: 7 },
      { device_name: 'phone', secret_key: SHA1_BASE32, period: 60, skew: 1, verified: true, algorithm: 'SHA1', digits: 8 },
    ]);
  });

  it.each([
    ['a role nobody declared', { userRoles: [{ role: 'admin', tenantIds: ['public'] }] }, 'Role admin does not exist.'],
    ['a hex key sent as base32', { totpDevices: [{ secretKey: SHA1_HEX }] }, 'secretKey could not be decoded as base32 for a totp device.'],
    ['a short key', { totpDevices: [{ secretKey: 'JBSWY3DP' }] }, 'secretKey is too short (40 bits; minimum 80) for a totp device.'],
    ['skew 11', { totpDevices: [{ secretKey: SHA1_BASE32, skew: 11 }] }, 'skew should be <= 10 for a totp device.'],
    ['t0 1', { totpDevices: [{ secretKey: SHA1_BASE32, t0: 1 }] }, 't0 other than 0 is not supported for a totp device.'],
    [
      'two devices of one name',
      {
        totpDevices: [
          { secretKey: SHA1_BASE32, deviceName: 'a' },
          { secretKey: SHA1_BASE32, deviceName: 'a' },
        ],
      },
      'TOTP deviceName a is not unique for this user.',
    ],
    ['a secret over 256 characters', { totpDevices: [{ secretKey: 'A'.repeat(257) }] }, 'TOTP secretKey is too long. Max length is 256.'],
    ['a short recovery code', { recoveryCodes: ['abc-de'] }, 'code should be 6 to 64 characters for a recovery code.'],
    ['a repeated recovery code', { recoveryCodes: ['abcdef', 'ABC-DEF'] }, 'recoveryCodes contains duplicate codes'],
    [
      'an unknown digest',
      { recoveryCodes: [{ hash: 'x', hashingAlgorithm: 'md5' }] },
      'Invalid hashingAlgorithm. Pass one of bcrypt, sha256 or, sha512! for a recovery code.',
    ],
    ['recovery codes as an object', { recoveryCodes: { code: 'abcdef' } }, 'recoveryCodes should be an array of strings or objects.'],
    [
      'a bcrypt digest over the import bound',
      { recoveryCodes: [{ hash: `$2b$16$${'a'.repeat(53)}`, hashingAlgorithm: 'bcrypt' }] },
      'hash is not an accepted bcrypt digest: cost = 16 is over the limit of 13 (raise imported_hash_max_bcrypt_cost to accept it) for a recovery code.',
    ],
    [
      'thirteen bcrypt digests',
      {
        recoveryCodes: Array.from({ length: 13 }, (_, n) => ({
          hash: `$2b$10$${String(n).padStart(53, 'a')}`,
          hashingAlgorithm: 'bcrypt',
        })),
      },
      'recoveryCodes can contain at most 12 bcrypt digests',
    ],
  ])('refuses %s, naming it for that user, writing nothing', async (_name, extra, message) => {
    const before = await snapshot(t.db);
    const reply = await enqueue({ users: [user({ userRoles: undefined, ...extra })] });
    expect(reply.statusCode).toBe(400);
    expect(reply.json).toEqual({
      error: 'Data has missing or invalid fields. Please check the users field for more details.',
      users: [{ index: 0, errors: [message] }],
    });
    expect(reply.body).not.toContain(SHA1_HEX.slice(0, 12));
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('refuses bad role definitions before any user, leaving no role behind', async () => {
    const cases = [
      [{ roleDefinitions: {}, users: [user()] }, "Field name 'roleDefinitions' is invalid in JSON input"],
      [{ roleDefinitions: [{ role: ' ' }], users: [user()] }, "Field name 'role' cannot be an empty String"],
      [
        { roleDefinitions: [{ role: 'admin', permissions: [''] }], users: [user()] },
        "Field name 'permissions' cannot contain an empty string",
      ],
    ] as const;
    for (const [body, message] of cases) {
      const reply = await enqueue(body);
      expect({ statusCode: reply.statusCode, body: reply.body }).toEqual({ statusCode: 400, body: `${message}\n` });
    }
    const invalidUser = await enqueue({
      roleDefinitions: [{ role: 'admin' }],
      users: [user({ totpDevices: [{ secretKey: 'JBSWY3DP' }] })],
    });
    expect(invalidUser.statusCode).toBe(400);
    expect((await t.db.pool.query('SELECT count(*)::int AS n FROM roles')).rows[0].n).toBe(0);
  });

  it('imports one user at once with its declared roles through /bulk-import/import', async () => {
    const reply = await call(t.app, 'POST', '/bulk-import/import', {
      body: { ...user(), roleDefinitions: [{ role: 'admin', permissions: ['read'] }] },
    });
    expect(reply.statusCode).toBe(200);
    expect(await getJson('/public/recipe/user/roles', { userId: 'ext-9' })).toEqual({ roles: ['admin'], status: 'OK' });
    expect(await getJson('/recipe/recoverycodes/status', { userId: 'ext-9' })).toEqual({ status: 'OK', remainingCount: 1, totalCount: 1 });
  });
});
