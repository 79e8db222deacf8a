import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helper.js';
import {
  authenticatorCode,
  base32Bytes,
  CLERK_CSV_HEADER,
  clerkApiUser,
  keycloakOtpCredential,
  keycloakPbkdf2Credential,
  keycloakRealm,
  keycloakRecoveryCredential,
  pgCsv,
  SUPABASE_FACTOR_COLUMNS,
  SUPABASE_USER_COLUMNS,
} from './carry/exports.js';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, signIn, startCore, type RunningCore } from './harness.js';

// TOTP seeds and recovery codes carried from each source that exports them: after the run, the code the user's
// authenticator app shows (computed here with node's HMAC from the seed as the source holds it) is accepted by the
// core, a replay is refused, and a recovery code works once.

const headers = { 'api-key': apiKey };

async function devicesOf(core: RunningCore, userId: string) {
  const reply = await call(core.t.app, 'GET', '/recipe/totp/device/list', { query: { userId }, headers });
  return reply.json;
}

async function verifyTotp(core: RunningCore, userId: string, totp: string) {
  const reply = await call(core.t.app, 'POST', '/public/recipe/totp/verify', { body: { userId, totp }, headers });
  return reply.json?.status;
}

async function useRecoveryCode(core: RunningCore, userId: string, code: string) {
  const reply = await call(core.t.app, 'POST', '/public/recipe/recoverycodes/verify', { body: { userId, code }, headers });
  return reply.json?.status;
}

async function metadataOf(core: RunningCore, userId: string) {
  const reply = await call(core.t.app, 'GET', '/recipe/user/metadata', { query: { userId }, headers });
  return reply.json?.metadata;
}

const reportOf = (file: string) => JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));

describe('migrate: TOTP seeds and recovery codes', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore();
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  it('keycloak: a raw-string SHA-256 8-digit seed and a BASE32 one both verify; recovery digests work once', async () => {
    const raw = '12345678901234567890123456789012';
    const base32 = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const file = temp.file(
      'otp-realm.json',
      keycloakRealm([
        {
          id: 'kc-raw',
          username: 'raw',
          enabled: true,
          email: 'raw@example.com',
          totp: true,
          credentials: [
            keycloakPbkdf2Credential('raw-pw', 1000),
            keycloakOtpCredential(raw, { algorithm: 'HmacSHA256', digits: 8, period: 30 }, 'Work phone'),
            keycloakRecoveryCredential(['R2D2C3POBB8X', 'K2SO0L3Y7ZZQ']),
          ],
        },
        {
          id: 'kc-b32',
          username: 'b32',
          enabled: true,
          email: 'b32@example.com',
          totp: true,
          credentials: [keycloakPbkdf2Credential('b32-pw', 1000), keycloakOtpCredential(base32, { secretEncoding: 'BASE32' })],
        },
      ]),
    );

    const result = await runCommand(migrateArgs(core, 'keycloak', file));

    expect(result.code).toBe(0);
    expect(reportOf(file).carried).toEqual([
      {
        user: 'kc-raw',
        record: 1,
        items: ['totp device "Work phone" (SHA256, 8 digits, 30 s, raw secret)', 'recovery codes: 2', 'required second factors: totp'],
      },
      { user: 'kc-b32', record: 2, items: ['totp device unnamed (SHA1, 6 digits, 30 s)', 'required second factors: totp'] },
    ]);
    expect(await devicesOf(core, 'kc-raw')).toEqual({
      status: 'OK',
      devices: [expect.objectContaining({ name: 'Work phone', period: 30, verified: true })],
    });
    expect(await metadataOf(core, 'kc-raw')).toEqual({ username: 'raw', _supertokens: { requiredSecondaryFactors: ['totp'] } });
    const code = authenticatorCode(Buffer.from(raw, 'utf8'), { algorithm: 'sha256', digits: 8 });
    expect(await verifyTotp(core, 'kc-raw', code)).toBe('OK');
    expect(await verifyTotp(core, 'kc-raw', code)).toBe('INVALID_TOTP_ERROR');
    expect(await verifyTotp(core, 'kc-b32', authenticatorCode(base32Bytes(base32)))).toBe('OK');
    expect(await useRecoveryCode(core, 'kc-raw', 'R2D2C3POBB8X')).toBe('OK');
    expect(await useRecoveryCode(core, 'kc-raw', 'R2D2C3POBB8X')).toBe('INVALID_RECOVERY_CODE_ERROR');
    expect(await signIn(core, 'raw@example.com', 'raw-pw')).toBe('OK');
  });

  it('clerk: the CSV totp_secret verifies and backup codes (plain and bcrypt) work once', async () => {
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    const csv = temp.file(
      'clerk-totp.csv',
      [CLERK_CSV_HEADER, `user_2ttt,Tia,Tan,,tia@example.com,,tia@example.com,,,,${secret},${bcryptHash('tia-pw')},bcrypt`].join('\n'),
    );
    const api = temp.file(
      'clerk-totp-api.json',
      JSON.stringify([
        clerkApiUser('user_2ttt', 'tia@example.com', {
          totp_enabled: true,
          two_factor_enabled: true,
          backup_code_enabled: true,
          backup_codes: ['plain-code-1', bcryptHash('hashed-code-2')],
        }),
      ]),
    );

    const result = await runCommand(migrateArgs(core, 'clerk', csv, '--clerk-api', api));

    expect(result.code).toBe(0);
    expect(reportOf(csv).carried).toEqual([
      {
        user: 'user_2ttt',
        record: 1,
        items: ['totp device unnamed (SHA1, 6 digits, 30 s)', 'recovery codes: 2', 'required second factors: totp'],
      },
    ]);
    expect(await verifyTotp(core, 'user_2ttt', authenticatorCode(base32Bytes(secret)))).toBe('OK');
    expect(await useRecoveryCode(core, 'user_2ttt', 'hashed-code-2')).toBe('OK');
    expect(await useRecoveryCode(core, 'user_2ttt', 'plain-code-1')).toBe('OK');
    expect(await useRecoveryCode(core, 'user_2ttt', 'plain-code-1')).toBe('INVALID_RECOVERY_CODE_ERROR');
  });

  it('supabase: a verified mfa_factors TOTP secret verifies', async () => {
    const secret = 'KRSXG5CTMVRXEZLUKN2XAZLSKNSWG4TFOQ';
    const users = temp.file(
      'sb-users.csv',
      pgCsv(SUPABASE_USER_COLUMNS, [
        {
          id: '7a000000-0000-4000-8000-000000000001',
          aud: 'authenticated',
          role: 'authenticated',
          email: 'sol@example.com',
          encrypted_password: bcryptHash('sol-pw'),
          email_confirmed_at: '2024-01-15 10:30:00+00',
          raw_app_meta_data: { provider: 'email', providers: ['email'] },
          raw_user_meta_data: {},
          created_at: '2024-01-15 10:30:00+00',
          is_anonymous: 'f',
        },
      ]),
    );
    const factors = temp.file(
      'sb-factors.csv',
      pgCsv(SUPABASE_FACTOR_COLUMNS, [
        {
          id: 'f7000000-0000-4000-8000-000000000001',
          user_id: '7a000000-0000-4000-8000-000000000001',
          friendly_name: 'Authy',
          factor_type: 'totp',
          status: 'verified',
          created_at: '2024-01-20 00:00:00+00',
          updated_at: '2024-01-20 00:00:00+00',
          secret,
        },
      ]),
    );

    const result = await runCommand(migrateArgs(core, 'supabase', users, '--mfa-factors', factors));

    expect(result.code).toBe(0);
    expect(reportOf(users).carried).toEqual([
      {
        user: '7a000000-0000-4000-8000-000000000001',
        record: 1,
        items: ['totp device "Authy" (SHA1, 6 digits, 30 s)', 'required second factors: totp'],
      },
    ]);
    expect(await verifyTotp(core, '7a000000-0000-4000-8000-000000000001', authenticatorCode(base32Bytes(secret)))).toBe('OK');
  });

  it('django-otp hex keys and a SuperTokens export through NDJSON; a seed that does not decode fails that user alone', async () => {
    const hexKey = '3132333435363738393031323334353637383930';
    const file = temp.file(
      'otp-users.ndjson',
      `${[
        {
          externalUserId: 'dj-1',
          email: 'dj@example.com',
          passwordHash: bcryptHash('dj-pw'),
          totpDevices: [{ secretKey: hexKey, secretEncoding: 'hex', period: 30, skew: 1, digits: 8, deviceName: 'default' }],
          recoveryCodes: ['static-token-1'],
        },
        {
          externalUserId: 'st-1',
          email: 'st@example.com',
          passwordHash: bcryptHash('st-pw'),
          userMetadata: { plan: 'pro' },
          totpDevices: [{ secretKey: 'JBSWY3DPEHPK3PXP', period: 30, skew: 1, deviceName: 'Phone' }],
        },
        {
          externalUserId: 'bad-1',
          email: 'bad@example.com',
          passwordHash: bcryptHash('bad-pw'),
          totpDevices: [{ secretKey: 'not base32 at all 0189', period: 30 }],
        },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n')}\n`,
    );

    const result = await runCommand(migrateArgs(core, 'ndjson', file));

    expect(result.code).toBe(1);
    const report = reportOf(file);
    expect(report.totals).toMatchObject({ read: 3, imported: 2, invalid: 1 });
    expect(report.notImported).toEqual([
      { user: 'bad-1', record: 3, stage: 'validation', reason: expect.stringContaining('secretKey could not be decoded as base32') },
    ]);
    expect(JSON.stringify(report)).not.toContain('not base32 at all');
    // The refused user is listed once, as not imported, not among the users carried.
    expect(report.carried.map((entry: { user: string }) => entry.user)).toEqual(['dj-1', 'st-1']);
    expect(await verifyTotp(core, 'dj-1', authenticatorCode(Buffer.from(hexKey, 'hex'), { digits: 8 }))).toBe('OK');
    expect(await useRecoveryCode(core, 'dj-1', 'static-token-1')).toBe('OK');
    expect(await verifyTotp(core, 'st-1', authenticatorCode(base32Bytes('JBSWY3DPEHPK3PXP')))).toBe('OK');
    expect(await metadataOf(core, 'st-1')).toEqual({ plan: 'pro', _supertokens: { requiredSecondaryFactors: ['totp'] } });
  });
});
