import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { FakeProvider } from '../lazy-migration/fake-providers.js';
import { sourceEntry } from '../lazy-migration/sources.js';
import { apiKey, migrateArgs, runCommand, signIn, startCore, type RunningCore } from './harness.js';

// Exports without password hashes, imported pending and adopted at the first sign-in through a fake old provider.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-lazy-'));
const write = (name: string, content: unknown) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
};

const cognitoUser = (username: string, sub: string, extra: Record<string, unknown> = {}, attributes: [string, string][] = []) => ({
  Username: username,
  Attributes: [['sub', sub], ...attributes].map(([Name, Value]) => ({ Name, Value })),
  UserCreateDate: '2023-01-15T10:20:30.123000+00:00',
  UserLastModifiedDate: '2023-02-01T00:00:00+00:00',
  Enabled: true,
  UserStatus: 'CONFIRMED',
  ...extra,
});

describe('migrate cognito and okta exports for lazy migration', () => {
  let cognito: FakeProvider;
  let okta: FakeProvider;
  let core: RunningCore;
  beforeAll(async () => {
    cognito = await FakeProvider.start('cognito', [{ login: 'alice_1', password: 'alice-pw', id: 'sub-alice' }]);
    okta = await FakeProvider.start('okta', [{ login: 'carol.login', password: 'carol-pw', id: '00u1carol' }]);
    core = await startCore({
      lazy_migration: {
        allow_canary: true,
        sources: { 'cognito-prod': sourceEntry('cognito', cognito.url), okta: sourceEntry('okta', okta.url) },
      },
    });
  });
  afterAll(async () => {
    await core.t.close();
    await cognito.close();
    await okta.close();
  });

  it('imports confirmed Cognito users pending, reports the rest, and the first sign-in asks Cognito by Username', async () => {
    const file = write('cognito.json', {
      Users: [
        cognitoUser('alice_1', 'sub-alice', {}, [
          ['email', 'Alice@Example.com'],
          ['email_verified', 'true'],
        ]),
        cognitoUser('temp_2', 'sub-temp', { UserStatus: 'FORCE_CHANGE_PASSWORD' }, [['email', 'temp@example.com']]),
        cognitoUser('off_3', 'sub-off', { Enabled: false }, [['email', 'off@example.com']]),
        cognitoUser('phone_4', 'sub-phone', {}, [['phone_number', '+14155552671']]),
      ],
    });
    const run = await runCommand(migrateArgs(core, 'cognito', file, '--lazy-source', 'cognito-prod'));
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
    expect(report.totals).toMatchObject({ read: 4, imported: 1 });
    expect(JSON.stringify(report)).toContain('FORCE_CHANGE_PASSWORD');
    expect(JSON.stringify(report)).not.toContain('$lazy$');

    const stored = await core.t.db.pool.query(
      `SELECT u.email, u.password_hash, m.external_user_id FROM users u JOIN user_id_mappings m USING (user_id)`,
    );
    expect(stored.rows).toEqual([
      { email: 'alice@example.com', password_hash: '$lazy$cognito-prod$YWxpY2VfMQ$c3ViLWFsaWNl', external_user_id: 'sub-alice' },
    ]);
    expect(await signIn(core, 'alice@example.com', 'alice-pw')).toBe('OK');
    expect(cognito.calls).toBe(1);
    expect(JSON.parse(cognito.requests[0].body).AuthParameters.USERNAME).toBe('alice_1');
  });

  it('imports active Okta users pending and lists the pending ones for a reset campaign', async () => {
    const file = write('okta.json', [
      {
        id: '00u1carol',
        status: 'ACTIVE',
        created: '2022-05-01T12:00:00.000Z',
        profile: { login: 'carol.login', email: 'carol@example.com' },
        credentials: { provider: { type: 'OKTA', name: 'OKTA' } },
      },
      {
        id: '00u2dave',
        status: 'ACTIVE',
        created: '2022-05-02T12:00:00.000Z',
        profile: { login: 'dave@example.com', email: 'dave@example.com' },
        credentials: { provider: { type: 'OKTA', name: 'OKTA' } },
      },
      {
        id: '00u3eve',
        status: 'STAGED',
        created: '2022-05-03T12:00:00.000Z',
        profile: { login: 'eve@example.com', email: 'eve@example.com' },
        credentials: { provider: { type: 'OKTA', name: 'OKTA' } },
      },
      {
        id: '00u4ad',
        status: 'ACTIVE',
        created: '2022-05-04T12:00:00.000Z',
        profile: { login: 'ad@example.com', email: 'ad@example.com' },
        credentials: { provider: { type: 'ACTIVE_DIRECTORY', name: 'corp' } },
      },
    ]);
    const run = await runCommand(migrateArgs(core, 'okta', file, '--lazy-source', 'okta'));
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
    expect(report.totals).toMatchObject({ read: 4, imported: 2, skipped: 2 });
    expect(await signIn(core, 'carol@example.com', 'carol-pw')).toBe('OK');
    expect(JSON.parse(okta.requests[0].body).username).toBe('carol.login');

    const pending = await runCommand(['lazy', 'pending', '--source', 'okta', '--format', 'csv', '--core-url', core.url]);
    expect(pending.code, pending.stderr).toBe(0);
    const lines = pending.stdout.trim().split('\n');
    expect(lines[0]).toBe('userId,externalUserId,email,legacyLogin,legacyUserId,timeJoined');
    expect(lines.slice(1).map((line) => line.split(',').slice(1))).toEqual([
      ['00u2dave', 'dave@example.com', 'dave@example.com', '00u2dave', String(Date.parse('2022-05-02T12:00:00.000Z'))],
    ]);
  });

  it('the canary checks one password from standard input and stores nothing', async () => {
    let stdout = '';
    const run = (password: string) =>
      runCli(['lazy', 'canary', '--source', 'cognito-prod', '--login', 'alice_1', '--core-url', core.url], {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: () => true },
        isTTY: false,
        env: { IDENTITY_CORE_API_KEY: apiKey },
        readStdin: async () => password,
      });
    expect(await run('alice-pw')).toBe(0);
    expect(stdout).toBe('cognito-prod: MATCH\n');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await run('wrong')).toBe(1);
  });

  it('refuses a Cognito export without --lazy-source, and a source name that cannot be one', async () => {
    const file = write('cognito-none.json', { Users: [] });
    const without = await runCommand(migrateArgs(core, 'cognito', file));
    expect([without.code, without.stderr.trim()]).toEqual([
      2,
      'identity-core migrate: cognito exports hold no password hashes: pass --lazy-source <name>, a lazy_migration source of the core',
    ]);
    const bad = await runCommand(migrateArgs(core, 'cognito', file, '--lazy-source', 'https://x'));
    expect(bad.stderr.trim()).toBe('identity-core migrate: --lazy-source takes a source name: 1 to 32 of a-z, 0-9, _ and -');
  });
});

describe('migrate firebase and auth0 exports without hashes', () => {
  it('password users without a hash become pending for --lazy-source; social users import as usual', async () => {
    const firebase = await FakeProvider.start('firebase', [{ login: 'fran@example.com', password: 'fran-pw', id: 'fb-fran' }]);
    const core = await startCore({ lazy_migration: { sources: { fb: sourceEntry('firebase', firebase.url) } } });
    const file = write('firebase.json', {
      users: [
        {
          localId: 'fb-fran',
          email: 'fran@example.com',
          emailVerified: true,
          createdAt: '1600000000000',
          providerUserInfo: [{ providerId: 'password', rawId: 'fran@example.com', email: 'fran@example.com' }],
        },
        {
          localId: 'fb-gus',
          email: 'gus@example.com',
          createdAt: '1600000000000',
          providerUserInfo: [{ providerId: 'google.com', rawId: 'g-gus', email: 'gus@example.com' }],
        },
      ],
    });
    const run = await runCommand(migrateArgs(core, 'firebase', file, '--lazy-source', 'fb'));
    expect(run.code, run.stderr).toBe(0);
    expect(await signIn(core, 'fran@example.com', 'fran-pw')).toBe('OK');
    expect(firebase.calls).toBe(1);
    const users = await core.t.db.pool.query(`SELECT recipe_id, email, password_hash LIKE '$2%' AS adopted FROM users ORDER BY email`);
    expect(users.rows).toEqual([
      { recipe_id: 'emailpassword', email: 'fran@example.com', adopted: true },
      { recipe_id: 'thirdparty', email: 'gus@example.com', adopted: null },
    ]);
    await core.t.close();
    await firebase.close();
  });

  it('a generic CSV of a dump without hashes (a Supabase auth.users export, say) imports pending users', async () => {
    const supabase = await FakeProvider.start('supabase', [{ login: 'ines@example.com', password: 'ines-pw', id: 'sb-ines' }]);
    const core = await startCore({ lazy_migration: { sources: { sb: sourceEntry('supabase', supabase.url) } } });
    const file = write(
      'supabase.csv',
      'externalUserId,email,emailVerified,timeJoined\nsb-ines,ines@example.com,true,2022-03-04T05:06:07Z\n',
    );
    const run = await runCommand(migrateArgs(core, 'csv', file, '--lazy-source', 'sb'));
    expect(run.code, run.stderr).toBe(0);
    expect(await signIn(core, 'ines@example.com', 'ines-pw')).toBe('OK');
    expect(supabase.calls).toBe(1);
    const stored = await core.t.db.pool.query(`SELECT m.external_user_id FROM users u JOIN user_id_mappings m USING (user_id)`);
    expect(stored.rows).toEqual([{ external_user_id: 'sb-ines' }]);
    await core.t.close();
    await supabase.close();
  });

  it('auth0 database users become pending when the hash export is not given', async () => {
    const auth0 = await FakeProvider.start('auth0', [{ login: 'hana@example.com', password: 'hana-pw', id: 'auth0|hana' }]);
    const core = await startCore({ lazy_migration: { sources: { a0: sourceEntry('auth0', auth0.url) } } });
    const file = write(
      'auth0.ndjson',
      `${JSON.stringify({ user_id: 'auth0|hana', email: 'hana@example.com', email_verified: true, created_at: '2021-01-01T00:00:00.000Z', identities: [{ provider: 'auth0', user_id: 'hana', connection: 'Username-Password-Authentication' }] })}\n`,
    );
    const run = await runCommand(migrateArgs(core, 'auth0', file, '--lazy-source', 'a0'));
    expect(run.code, run.stderr).toBe(0);
    expect(await signIn(core, 'hana@example.com', 'hana-pw')).toBe('OK');
    expect(await signIn(core, 'hana@example.com', 'hana-pw')).toBe('OK');
    expect(auth0.calls).toBe(1);
    await core.t.close();
    await auth0.close();
  });
});
