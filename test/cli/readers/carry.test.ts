import crypto from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMapping, resolveRoles } from '../../../src/cli/mapping.js';
import { openSource, type ReaderOptions, type SourceName } from '../../../src/cli/readers/index.js';
import { pgTime } from '../../../src/cli/readers/supabase.js';
import {
  CLERK_CSV_HEADER,
  keycloakOtpCredential,
  keycloakPbkdf2Credential,
  keycloakRealm,
  keycloakRecoveryCredential,
  pgCsv,
  SUPABASE_FACTOR_COLUMNS,
  SUPABASE_USER_COLUMNS,
} from '../carry/exports.js';
import { bcryptHash, collect, makeTempDir } from '../fixtures.js';

// What the readers make of second factors and recovery codes in each export, before any core is asked: the fields
// bulk import receives (contract M-5.7, M-6.1, M-7) and what the report will say.

const temp = makeTempDir();
afterAll(() => temp.remove());

const carry = { source: 'test', markedAt: 1_800_000_000_000 };
const read = (source: SourceName, file: string, extra: Partial<ReaderOptions> = {}) =>
  collect(openSource(source, file, { includeDisabled: false, providerOverrides: new Map(), carry, ...extra }).records);

describe('keycloak otp and recovery-code credentials', () => {
  it('keeps raw-string and BASE32 secrets apart, carries algorithm, digits and period, numbers twin labels', async () => {
    const file = temp.file(
      'otp-realm.json',
      keycloakRealm([
        {
          id: 'kc-otp',
          username: 'otp',
          enabled: true,
          email: 'otp@example.com',
          credentials: [
            keycloakPbkdf2Credential('pw', 1000),
            // The RFC 6238 SHA-256 seed as Keycloak stores it by default: its bytes are the UTF-8 of the string.
            keycloakOtpCredential('12345678901234567890123456789012', { algorithm: 'HmacSHA256', digits: 8, period: 60 }, 'Phone'),
            keycloakOtpCredential('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', { secretEncoding: 'BASE32' }, 'Phone'),
            keycloakOtpCredential('counter-based', { subType: 'hotp', counter: 7 }),
            keycloakRecoveryCredential(['ABCD1234EFGH', 'IJKL5678MNPQ']),
          ],
        },
      ]),
    );
    const [record] = await read('keycloak', file);
    expect(record.user?.totpDevices).toEqual([
      {
        secretKey: '12345678901234567890123456789012',
        secretEncoding: 'raw',
        algorithm: 'SHA256',
        digits: 8,
        period: 60,
        deviceName: 'Phone',
      },
      {
        secretKey: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
        secretEncoding: 'base32',
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
        deviceName: 'Phone (2)',
      },
    ]);
    expect(record.user?.recoveryCodes).toEqual([
      { hash: crypto.createHash('sha512').update('ABCD1234EFGH').digest('base64'), hashingAlgorithm: 'sha512' },
      { hash: crypto.createHash('sha512').update('IJKL5678MNPQ').digest('base64'), hashingAlgorithm: 'sha512' },
    ]);
    expect(record.user?.userMetadata).toEqual({
      username: 'otp',
      _supertokens: { requiredSecondaryFactors: ['totp'] },
      mfaReEnrolment: { required: true, factors: ['totp'], source: 'test', markedAt: 1_800_000_000_000 },
    });
    expect(record.carried).toEqual([
      'totp device "Phone" (SHA256, 8 digits, 60 s, raw secret)',
      'totp device "Phone (2)" (SHA1, 6 digits, 30 s)',
      'recovery codes: 2',
      'required second factors: totp',
      'marked to re-enrol (mfaReEnrolment): totp',
    ]);
    expect(record.notCarried).toEqual([
      'credentials[3] otp: hotp devices cannot be carried (the core verifies TOTP only); marked to re-enrol',
    ]);
  });

  it('refuses a password hash the core cannot verify, with the algorithm named', async () => {
    const credential = { ...keycloakPbkdf2Credential('pw', 1000), credentialData: JSON.stringify({ hashIterations: 1, algorithm: 'md5' }) };
    const file = temp.file(
      'md5-realm.json',
      keycloakRealm([{ id: 'kc-md5', enabled: true, email: 'md5@example.com', credentials: [credential] }]),
    );
    const [record] = await read('keycloak', file);
    expect(record.problem).toEqual({
      kind: 'invalid',
      reason: 'password hash algorithm md5 is not one the core verifies (pbkdf2, pbkdf2-sha256, pbkdf2-sha512, argon2)',
    });
  });
});

describe('clerk totp_secret and backup codes', () => {
  it('sends the CSV secret as a SHA1/6/30 base32 device and backup codes plain or as bcrypt digests', async () => {
    const csv = temp.file(
      'clerk-totp.csv',
      [CLERK_CSV_HEADER, `user_2ttt,Tia,Tan,,tia@example.com,,tia@example.com,,,,JBSWY3DPEHPK3PXP,${bcryptHash('tia-pw')},bcrypt`].join(
        '\n',
      ),
    );
    const digest = bcryptHash('code-two');
    const api = new Map([
      ['user_2ttt', { id: 'user_2ttt', totp_enabled: true, backup_code_enabled: true, backup_codes: ['code-one', digest] }],
    ]);
    const [record] = await read('clerk', csv, { clerkApi: api });
    expect(record.user?.totpDevices).toEqual([
      { secretKey: 'JBSWY3DPEHPK3PXP', secretEncoding: 'base32', algorithm: 'SHA1', digits: 6, period: 30 },
    ]);
    expect(record.user?.recoveryCodes).toEqual(['code-one', { hash: digest, hashingAlgorithm: 'bcrypt' }]);
    expect(record.notCarried).toBeUndefined();
  });
});

describe('supabase mfa_factors', () => {
  it('carries verified TOTP factors; an encrypted secret marks the user instead', async () => {
    const users = temp.file(
      'sb-users.csv',
      pgCsv(SUPABASE_USER_COLUMNS, [
        {
          id: 'u-1',
          email: 'one@example.com',
          encrypted_password: bcryptHash('pw'),
          created_at: '2024-01-15 10:30:00+00',
          is_anonymous: 'f',
        },
        {
          id: 'u-2',
          email: 'two@example.com',
          encrypted_password: bcryptHash('pw'),
          created_at: '2024-01-15 10:30:00+00',
          is_anonymous: 'f',
        },
      ]),
    );
    const factors = new Map([
      [
        'u-1',
        [
          {
            id: 'f-1',
            user_id: 'u-1',
            friendly_name: 'Authy',
            factor_type: 'totp',
            status: 'verified',
            secret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ',
          },
        ],
      ],
      [
        'u-2',
        [
          {
            id: 'f-2',
            user_id: 'u-2',
            factor_type: 'totp',
            status: 'verified',
            secret: '{"key_id":"k","alg":"aes-gcm-hkdf","nonce":"n","data":"d"}',
          },
        ],
      ],
    ]);
    expect(SUPABASE_FACTOR_COLUMNS).toContain('secret');
    const [one, two] = await read('supabase', users, { supabaseTables: { factors } });
    expect(one.user?.totpDevices).toEqual([
      {
        secretKey: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ',
        secretEncoding: 'base32',
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
        deviceName: 'Authy',
      },
    ]);
    expect(two.user?.totpDevices).toBeUndefined();
    expect(two.notCarried).toEqual([
      'mfa_factors f-2 totp: the secret is encrypted (decrypt it with the auth server key first); marked to re-enrol',
    ]);
  });

  it('reads PostgreSQL timestamps as psql writes them', () => {
    expect(pgTime('2024-01-15 10:30:00.123456+00')).toBe(Date.parse('2024-01-15T10:30:00.123Z'));
    expect(pgTime('2024-01-15 12:30:00+02')).toBe(Date.parse('2024-01-15T10:30:00Z'));
    expect(pgTime('2024-01-15 05:00:00-05:30')).toBe(Date.parse('2024-01-15T10:30:00Z'));
    expect(pgTime('15/01/2024')).toBeNaN();
  });
});

describe('generic NDJSON in bulk import shape (SuperTokens export, django-otp)', () => {
  it('passes hex django-otp devices and a SuperTokens explicit factor list through as written', async () => {
    const file = temp.file(
      'bulk-shape.ndjson',
      `${[
        {
          externalUserId: 'dj-1',
          email: 'dj@example.com',
          passwordHash: bcryptHash('pw'),
          totpDevices: [
            {
              secretKey: '3132333435363738393031323334353637383930',
              secretEncoding: 'hex',
              period: 30,
              skew: 1,
              digits: 6,
              lastUsedTimeStep: 56789012,
            },
          ],
          recoveryCodes: ['a1b2c3d4'],
        },
        {
          externalUserId: 'st-1',
          email: 'st@example.com',
          passwordHash: bcryptHash('pw'),
          userMetadata: { _supertokens: { requiredSecondaryFactors: [] }, plan: 'pro' },
          userRoles: [{ role: 'admin', tenantIds: ['public'] }],
          totpDevices: [{ secretKey: 'JBSWY3DPEHPK3PXP', period: 30, skew: 1, deviceName: 'Phone' }],
        },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n')}\n`,
    );
    const [django, supertokens] = await read('ndjson', file, {
      carry: { ...carry, mapping: parseMapping({ roles: { admin: [] } }) },
    });
    expect(django.user).toMatchObject({
      totpDevices: [{ secretKey: '3132333435363738393031323334353637383930', secretEncoding: 'hex', lastUsedTimeStep: 56789012 }],
      recoveryCodes: ['a1b2c3d4'],
      userMetadata: { _supertokens: { requiredSecondaryFactors: ['totp'] } },
    });
    // An explicit list from the source wins, even an empty one.
    expect(supertokens.user?.userMetadata).toEqual({ _supertokens: { requiredSecondaryFactors: [] }, plan: 'pro' });
    expect(supertokens.user?.userRoles).toEqual([{ role: 'admin', tenantIds: ['public'] }]);
  });
});

describe('phone second factors', () => {
  it('a number the user already signs in with is that factor; a refused one is reported, never linked', async () => {
    const file = temp.file(
      'phones.json',
      JSON.stringify({
        users: [
          { localId: 'p-1', phoneNumber: '+14155552671', mfaInfo: [{ mfaEnrollmentId: 'm', phoneInfo: '+1 415 555 2671' }] },
          { localId: 'p-2', email: 'p2@example.com', mfaInfo: [{ mfaEnrollmentId: 'm', phoneInfo: '555-0100' }] },
        ],
      }),
    );
    const [same, refused] = await read('firebase', file);
    expect(same.user?.loginMethods).toEqual([{ recipeId: 'passwordless', phoneNumber: '+14155552671', isVerified: false }]);
    expect(same.carried).toEqual(['second factor otp-phone: +14155552671', 'required second factors: otp-phone']);
    expect(refused.user?.loginMethods).toEqual([{ recipeId: 'passwordless', email: 'p2@example.com', isVerified: false }]);
    expect(refused.notCarried?.[0]).toMatch(/^second factor phone: phoneNumber .* international/);
    expect(refused.user?.userMetadata).toBeUndefined();
  });
});

describe('a second-factor phone two users share', () => {
  it('stays with the first; the second keeps everything else and is marked to enrol a phone again', async () => {
    const file = temp.file(
      'shared-phone.json',
      JSON.stringify({
        users: [
          { localId: 's-1', email: 's1@example.com', mfaInfo: [{ mfaEnrollmentId: 'a', phoneInfo: '+14155550166' }] },
          { localId: 's-2', email: 's2@example.com', mfaInfo: [{ mfaEnrollmentId: 'b', phoneInfo: '+14155550166' }] },
        ],
      }),
    );
    const [first, second] = await read('firebase', file);
    expect(first.user?.loginMethods.map((method) => method.phoneNumber ?? method.email)).toEqual(['s1@example.com', '+14155550166']);
    expect(second.problem).toBeUndefined();
    expect(second.user).toEqual({
      externalUserId: 's-2',
      loginMethods: [{ recipeId: 'passwordless', email: 's2@example.com', isVerified: false }],
      userMetadata: { mfaReEnrolment: { required: true, factors: ['otp-phone'], source: 'test', markedAt: 1_800_000_000_000 } },
    });
    expect(second.carried).toEqual(['marked to re-enrol (mfaReEnrolment): otp-phone']);
    expect(second.notCarried).toEqual([
      'second factor phone +14155550166: record 1 signs in with or proves the same number; marked to re-enrol',
    ]);
  });
});

describe('the mapping file', () => {
  it('names what is wrong in it', () => {
    expect(() => parseMapping({ roles: { admin: 'all' } })).toThrow('roles.admin must be a list of permissions (non-empty strings)');
    expect(() => parseMapping({ rolez: {} })).toThrow(
      'unknown key(s) rolez (known: roles, map, unmapped, roleClaims, userEditableClaims, organizations)',
    );
    expect(() => parseMapping({ unmapped: 'drop' })).toThrow('unmapped takes report or keep');
    expect(() => parseMapping({ roles: { '': [] } })).toThrow('roles.: a role name must be 1 to 255 characters');
    expect(() => parseMapping([])).toThrow('the mapping must be an object');
  });

  it('maps names, takes a declared name as itself, keeps or reports the rest', () => {
    const mapping = parseMapping({ roles: { admin: [], staff: [] }, map: { Admins: ['admin', 'staff'] } });
    expect(resolveRoles(['Admins', 'staff', 'other'], mapping)).toEqual({ roles: ['admin', 'staff'], unmapped: ['other'] });
    expect(resolveRoles(['other'], { ...mapping, unmapped: 'keep' })).toEqual({ roles: ['other'], unmapped: [] });
    expect(resolveRoles(['x'], undefined)).toEqual({ roles: [], unmapped: ['x'] });
  });
});
