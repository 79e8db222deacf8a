import fs from 'node:fs';
import { hash as argon2Hash } from '@node-rs/argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows } from '../helper.js';
import { bcryptHash, firebasePassword, hashParams, makeTempDir } from './fixtures.js';
import { migrateArgs, runCommand, signIn, startCore, userById, type RunningCore } from './harness.js';

const ndjson = (lines: object[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;

describe('migrate auth0 and generic files', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore();
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  it('imports an Auth0 user export joined with its password-hash export', async () => {
    const users = temp.file(
      'auth0-users.ndjson',
      ndjson([
        {
          user_id: 'auth0|a1',
          email: 'Dana@Example.com',
          email_verified: true,
          created_at: '2021-03-04T05:06:07.000Z',
          identities: [{ provider: 'auth0', user_id: 'a1', connection: 'Username-Password-Authentication', isSocial: false }],
        },
        {
          user_id: 'auth0|a2',
          email: 'eve@example.com',
          created_at: '2021-03-05T00:00:00.000Z',
          identities: [
            { provider: 'auth0', user_id: 'a2', connection: 'Username-Password-Authentication', isSocial: false },
            {
              provider: 'google-oauth2',
              user_id: '1170',
              connection: 'google-oauth2',
              isSocial: true,
              profileData: { email: 'eve@gmail.com' },
            },
          ],
        },
        {
          user_id: 'google-oauth2|1171',
          email: 'frank@gmail.com',
          email_verified: true,
          created_at: '2021-03-06T00:00:00.000Z',
          identities: [{ provider: 'google-oauth2', user_id: '1171', connection: 'google-oauth2', isSocial: true }],
        },
        { user_id: 'sms|s1', phone_number: '+14155550100', identities: [{ provider: 'sms', user_id: 's1' }] },
        { user_id: 'auth0|a5', email: 'nohash@example.com', identities: [{ provider: 'auth0', user_id: 'a5' }] },
      ]),
    );
    const hashes = temp.file(
      'auth0-hashes.ndjson',
      ndjson([
        {
          _id: { $oid: 'a1' },
          email: 'dana@example.com',
          passwordHash: bcryptHash('dana-pw'),
          connection: 'Username-Password-Authentication',
        },
        {
          _id: { $oid: 'a2' },
          email: 'eve@example.com',
          passwordHash: bcryptHash('eve-pw'),
          connection: 'Username-Password-Authentication',
        },
      ]),
    );

    const result = await runCommand(
      migrateArgs(core, 'auth0', users, '--password-hashes', hashes, '--check-password', 'dana@example.com:dana-pw'),
    );

    expect(result.code).toBe(1);
    const report = JSON.parse(fs.readFileSync(`${users}.migrate-report.json`, 'utf8'));
    expect(report.totals).toEqual({
      read: 5,
      imported: 4,
      alreadyImported: 0,
      failed: 0,
      invalid: 1,
      skipped: 0,
      completed: 0,
      stillQueued: 0,
      withCollisions: 0,
      withDataNotCarried: 0,
    });
    expect(report.notImported).toEqual([
      { user: 'auth0|a5', record: 5, stage: 'source', reason: 'no password hash for nohash@example.com in the password-hash export' },
    ]);
    expect(report.collisions).toEqual([]);
    // Eve's password and her linked Google identity are one user.
    expect(await userById(core, 'auth0|a2')).toMatchObject({
      isPrimaryUser: true,
      emails: ['eve@example.com', 'eve@gmail.com'],
      thirdParty: [{ id: 'google', userId: '1170' }],
    });
    expect(await signIn(core, 'dana@example.com', 'dana-pw')).toBe('OK');
    expect(await signIn(core, 'eve@example.com', 'eve-pw')).toBe('OK');
    expect(await userById(core, 'auth0|a1')).toMatchObject({
      timeJoined: Date.parse('2021-03-04T05:06:07.000Z'),
      loginMethods: [{ verified: true }],
    });
    expect(await userById(core, 'google-oauth2|1171')).toMatchObject({ thirdParty: [{ id: 'google', userId: '1171' }] });
    expect(await userById(core, 'sms|s1')).toMatchObject({ phoneNumbers: ['+14155550100'] });
  });

  it('imports the generic CSV and NDJSON formats with bcrypt, argon2 and scrypt-variant hashes', async () => {
    const argon = await argon2Hash('gina-pw', { memoryCost: 1024, timeCost: 1, parallelism: 1 });
    const hank = await firebasePassword('hank-pw');
    const scrypt = `$f_scrypt$${hank.passwordHash}$${hank.salt}$m=${hashParams.memCost}$r=${hashParams.rounds}$s=${hashParams.saltSeparator}`;
    const csv = temp.file(
      'users.csv',
      [
        'externalUserId,email,passwordHash,hashingAlgorithm,phoneNumber,thirdPartyId,thirdPartyUserId,timeJoined,emailVerified',
        `csv-1,gina@example.com,"${argon}",,,,,2022-01-01T00:00:00Z,true`,
        `csv-2,hank@example.com,"${scrypt}",IDP_SCRYPT,,,,1640995200001,false`,
        'csv-3,ida@example.com,,,,github,9001,,',
        ',,,,+442071838751,,,,',
      ].join('\n'),
    );
    const lines = temp.file(
      'users.ndjson',
      ndjson([
        {
          externalUserId: 'nd-1',
          email: 'jo@example.com',
          passwordHash: bcryptHash('jo-pw'),
          emailVerified: true,
          timeJoined: 1640995200002,
        },
        { externalUserId: 'nd-2', email: 'kim@example.com', passwordHash: bcryptHash('kim-pw'), phoneNumber: '+33612345678' },
        { externalUserId: 'nd-3', email: 'lee@example.com', passwordHash: '$2a$10$tooShort', hashingAlgorithm: 'bcrypt' },
      ]),
    );

    const fromCsv = await runCommand(migrateArgs(core, 'csv', csv, '--check-password', 'gina@example.com:gina-pw'));
    const fromNdjson = await runCommand(migrateArgs(core, 'ndjson', lines));

    expect(fromCsv.stderr).toContain('canary gina@example.com: imported and signed in');
    expect(fromCsv.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(`${csv}.migrate-report.json`, 'utf8')).totals).toEqual({
      read: 4,
      imported: 4,
      alreadyImported: 0,
      failed: 0,
      invalid: 0,
      skipped: 0,
      completed: 0,
      stillQueued: 0,
      withCollisions: 0,
      withDataNotCarried: 0,
    });
    expect(await signIn(core, 'gina@example.com', 'gina-pw')).toBe('OK');
    expect(await signIn(core, 'hank@example.com', 'hank-pw')).toBe('OK');
    expect(await userById(core, 'csv-3')).toMatchObject({ thirdParty: [{ id: 'github', userId: '9001' }] });
    expect(await userById(core, 'csv-1')).toMatchObject({
      timeJoined: Date.parse('2022-01-01T00:00:00Z'),
      loginMethods: [{ verified: true }],
    });

    expect(fromNdjson.code).toBe(1);
    const report = JSON.parse(fs.readFileSync(`${lines}.migrate-report.json`, 'utf8'));
    expect(report.totals).toEqual({
      read: 3,
      imported: 2,
      alreadyImported: 0,
      failed: 0,
      invalid: 1,
      skipped: 0,
      completed: 0,
      stillQueued: 0,
      withCollisions: 0,
      withDataNotCarried: 0,
    });
    expect(report.notImported).toEqual([
      {
        user: 'nd-3',
        record: 3,
        stage: 'validation',
        reason: 'Password hash is in invalid BCrypt format: salt and hash must be exactly 53 characters, got 8',
      },
    ]);
    expect(report.collisions).toEqual([]);
    expect(await userById(core, 'nd-2')).toMatchObject({ emails: ['kim@example.com'], phoneNumbers: ['+33612345678'] });
    expect(await signIn(core, 'jo@example.com', 'jo-pw')).toBe('OK');
    expect(await signIn(core, 'kim@example.com', 'kim-pw')).toBe('OK');
    expect(await countRows(core.t.db, 'bulk_import_users')).toBe(0);
  });
});
