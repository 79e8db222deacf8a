import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call } from '../helper.js';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { sourceEntry } from '../lazy-migration/sources.js';
import { apiKey, migrateArgs, runCommand, signIn, startCore, startProxy, userById, type RunningCore } from './harness.js';

// A re-run with more of the export (the password-hash file, second factors, metadata, roles) completes the users an
// earlier run imported without it: same user, what it lacked added, listed per user in the report.

const ndjson = (lines: object[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const readReport = (file: string) => JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
const headers = { 'api-key': apiKey };
const SHA1_BASE32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

const auth0User = (id: string, email: string, google?: string) => ({
  user_id: `auth0|${id}`,
  email,
  email_verified: true,
  created_at: '2022-01-02T03:04:05.000Z',
  identities: [
    { provider: 'auth0', user_id: id, connection: 'Username-Password-Authentication', isSocial: false },
    ...(google === undefined ? [] : [{ provider: 'google-oauth2', user_id: google, connection: 'google-oauth2', isSocial: true }]),
  ],
});
const hashLine = (id: string, email: string, password: string) => ({
  _id: { $oid: id },
  email,
  passwordHash: bcryptHash(password),
  connection: 'Username-Password-Authentication',
});

// Every request the command makes, counted by method and path.
async function counting(core: RunningCore) {
  const counts = new Map<string, number>();
  const proxy = await startProxy(core.url, (method, path) => {
    counts.set(`${method} ${path}`, (counts.get(`${method} ${path}`) ?? 0) + 1);
    return 'forward';
  });
  return { core: { ...core, url: proxy.url }, count: (key: string) => counts.get(key) ?? 0, close: () => proxy.close() };
}

function recipeIds(user: { loginMethods: { recipeId: string }[] }): string[] {
  return user.loginMethods.map((method) => method.recipeId).sort();
}

describe('migrate: a re-run with more material completes users it imported before', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let core: RunningCore;
  beforeEach(async () => {
    temp = makeTempDir();
    core = await startCore();
  });
  afterEach(async () => {
    await core.t.close();
    temp.remove();
  });

  it('auth0: without --password-hashes, then with it: the password and Google user signs in with the password, still one user', async () => {
    const file = temp.file(
      'users.ndjson',
      ndjson([
        auth0User('p1', 'pat@example.com', 'g-p1'),
        { ...auth0User('g2', 'gil@example.com'), user_id: 'google-oauth2|g2', identities: [{ provider: 'google-oauth2', user_id: 'g2' }] },
      ]),
    );
    const hashes = temp.file('hashes.ndjson', ndjson([hashLine('p1', 'pat@example.com', 'pat-pw')]));

    const first = await runCommand(migrateArgs(core, 'auth0', file));
    expect(first.code, first.stderr).toBe(0);
    const firstReport = readReport(file);
    const created = firstReport.created.find((entry: { user: string }) => entry.user === 'auth0|p1');
    expect(recipeIds(await userById(core, 'auth0|p1'))).toEqual(['thirdparty']);
    expect(await signIn(core, 'pat@example.com', 'pat-pw')).toBe('WRONG_CREDENTIALS_ERROR');

    const second = await runCommand(migrateArgs(core, 'auth0', file, '--password-hashes', hashes));
    expect(second.code, second.stderr).toBe(0);
    const report = readReport(file);
    expect(report.totals).toEqual({
      read: 2,
      imported: 0,
      alreadyImported: 1,
      completed: 1,
      failed: 0,
      invalid: 0,
      skipped: 0,
      stillQueued: 0,
      withCollisions: 0,
      withDataNotCarried: 0,
    });
    expect(report.completed).toEqual([{ user: 'auth0|p1', record: 1, userId: created.userId, added: ['emailpassword login method'] }]);
    // Undo removes what a run created: this run created nobody.
    expect(report.created).toEqual([]);
    expect(second.stdout).toContain(
      'Completed (users in the core before this run, given what they lacked):\n  auth0|p1 (record 1): added emailpassword login method',
    );

    expect(await signIn(core, 'pat@example.com', 'pat-pw')).toBe('OK');
    const user = await userById(core, 'auth0|p1');
    expect(user.isPrimaryUser).toBe(true);
    expect(recipeIds(user)).toEqual(['emailpassword', 'thirdparty']);
    const { rows } = await core.t.db.pool.query(
      `SELECT count(DISTINCT i.group_id)::int AS groups, min(i.group_id) AS id FROM user_ids i JOIN users u ON u.user_id = i.user_id
        WHERE u.email = 'pat@example.com'`,
    );
    expect(rows[0]).toEqual({ groups: 1, id: created.userId });

    // The same command again: one lookup per batch, nothing sent, nothing completed.
    const proxy = await counting(core);
    try {
      const third = await runCommand([...migrateArgs(proxy.core, 'auth0', file, '--password-hashes', hashes), '--restart']);
      expect(third.code, third.stderr).toBe(0);
    } finally {
      await proxy.close();
    }
    expect([proxy.count('POST /bulk-import/users'), proxy.count('POST /bulk-import/users/complete')]).toEqual([0, 0]);
    expect(readReport(file).completed).toEqual([]);
    expect(readReport(file).totals).toMatchObject({ read: 2, imported: 0, alreadyImported: 2, completed: 0 });

    // Undo of the completing run leaves the user and what was added to it.
    const undo = await runCommand(['migrate', 'undo', `${file}.migrate-report.json`, '--core-url', core.url]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(await signIn(core, 'pat@example.com', 'pat-pw')).toBe('OK');
  });

  it('a new login method another user holds is a conflict for that user alone; the others are completed', async () => {
    const file = temp.file(
      'users.ndjson',
      ndjson([
        auth0User('p1', 'pat@example.com', 'g-p1'),
        auth0User('r4', 'rae@example.com', 'g-r4'),
        auth0User('s5', 'sam@example.com', 'g-s5'),
      ]),
    );
    const hashes = temp.file(
      'hashes.ndjson',
      ndjson([
        hashLine('p1', 'pat@example.com', 'pat-pw'),
        hashLine('r4', 'rae@example.com', 'rae-pw'),
        hashLine('s5', 'sam@example.com', 'sam-pw'),
      ]),
    );
    expect((await runCommand(migrateArgs(core, 'auth0', file))).code).toBe(0);
    // Someone signed up with Rae's email and a password after the first run.
    const signUp = await call(core.t.app, 'POST', '/recipe/signup', { body: { email: 'rae@example.com', password: 'other-pw' }, headers });
    expect(signUp.json.status).toBe('OK');

    const second = await runCommand(migrateArgs(core, 'auth0', file, '--password-hashes', hashes));
    expect(second.code).toBe(1);
    const report = readReport(file);
    expect(report.totals).toMatchObject({ read: 3, completed: 2, failed: 1, alreadyImported: 0, imported: 0 });
    expect(report.completed.map((entry: { user: string; added: string[] }) => [entry.user, entry.added])).toEqual([
      ['auth0|p1', ['emailpassword login method']],
      ['auth0|s5', ['emailpassword login method']],
    ]);
    expect(report.notImported).toEqual([
      {
        user: 'auth0|r4',
        record: 2,
        stage: 'conflict',
        reason: `emailpassword user rae@example.com already exists in the core as another user (${signUp.json.user.id}), so user auth0|r4 cannot be completed with it`,
      },
    ]);
    expect(await signIn(core, 'pat@example.com', 'pat-pw')).toBe('OK');
    expect(await signIn(core, 'sam@example.com', 'sam-pw')).toBe('OK');
    expect(await signIn(core, 'rae@example.com', 'other-pw')).toBe('OK');
    expect(recipeIds(await userById(core, 'auth0|r4'))).toEqual(['thirdparty']);
  });

  it('a re-run that carries TOTP devices, recovery codes, metadata and roles completes those, keeping values the app changed', async () => {
    const hash = bcryptHash('ada-pw');
    const ada = { externalUserId: 'old-ada', email: 'ada@example.com', passwordHash: hash, userMetadata: { plan: 'free' } };
    const bob = { externalUserId: 'old-bob', email: 'bob@example.com', passwordHash: hash };
    const first = temp.file('users.ndjson', ndjson([ada, bob]));
    expect((await runCommand(migrateArgs(core, 'ndjson', first))).code).toBe(0);
    // The app changed Ada's plan after the cutover.
    await call(core.t.app, 'PUT', '/recipe/user/metadata', { body: { userId: 'old-ada', metadataUpdate: { plan: 'pro' } }, headers });

    const richer = temp.file(
      'richer.ndjson',
      ndjson([
        {
          ...ada,
          userMetadata: { plan: 'free', team: 'blue' },
          userRoles: ['admin'],
          totpDevices: [{ secretKey: SHA1_BASE32 }],
          recoveryCodes: ['abcd-efgh-ij'],
        },
        bob,
      ]),
    );
    const mapping = temp.file('mapping.yaml', 'roles:\n  admin: []\n');
    const second = await runCommand(migrateArgs(core, 'ndjson', richer, '--mapping', mapping));
    expect(second.code, second.stderr).toBe(0);
    const report = readReport(richer);
    expect(report.totals).toMatchObject({ read: 2, imported: 0, completed: 1, alreadyImported: 1, failed: 0 });
    expect(report.completed).toEqual([
      {
        user: 'old-ada',
        record: 1,
        userId: expect.any(String),
        added: ['1 TOTP device', '1 recovery code', 'metadata keys team, _supertokens', 'role admin'],
      },
    ]);
    expect(report.created).toEqual([]);

    const get = async (url: string, query: Record<string, string>) => (await call(core.t.app, 'GET', url, { query, headers })).json;
    expect((await get('/recipe/user/metadata', { userId: 'old-ada' })).metadata).toEqual({
      plan: 'pro',
      team: 'blue',
      _supertokens: { requiredSecondaryFactors: ['totp'] },
    });
    expect((await get('/public/recipe/user/roles', { userId: 'old-ada' })).roles).toEqual(['admin']);
    expect((await get('/recipe/totp/device/list', { userId: 'old-ada' })).devices).toHaveLength(1);
    const recovery = await call(core.t.app, 'POST', '/public/recipe/recoverycodes/verify', {
      body: { userId: 'old-ada', code: 'abcd-efgh-ij' },
      headers,
    });
    expect(recovery.json.status).toBe('OK');
    expect(await signIn(core, 'ada@example.com', 'ada-pw')).toBe('OK');

    // Run again: nothing is missing any more, so nothing is sent.
    const proxy = await counting(core);
    try {
      expect((await runCommand([...migrateArgs(proxy.core, 'ndjson', richer, '--mapping', mapping), '--restart'])).code).toBe(0);
    } finally {
      await proxy.close();
    }
    expect(proxy.count('POST /bulk-import/users/complete')).toBe(0);
    expect(readReport(richer).totals).toMatchObject({ alreadyImported: 2, completed: 0 });
  });

  it('auth0 imported pending (--lazy-source), then with --password-hashes: the pointer gets the real hash', async () => {
    await core.t.close();
    // The old provider's URL is never called: the password is checked against the hash the second run gives.
    core = await startCore({ lazy_migration: { sources: { legacy: sourceEntry('webhook', 'http://127.0.0.1:9') } } });
    const file = temp.file('users.ndjson', ndjson([auth0User('p1', 'pat@example.com')]));
    const hashes = temp.file('hashes.ndjson', ndjson([hashLine('p1', 'pat@example.com', 'pat-pw')]));
    expect((await runCommand(migrateArgs(core, 'auth0', file, '--lazy-source', 'legacy'))).code).toBe(0);
    const { rows } = await core.t.db.pool.query(
      "SELECT password_hash LIKE '$lazy$%' AS pending FROM users WHERE email = 'pat@example.com'",
    );
    expect(rows).toEqual([{ pending: true }]);

    const second = await runCommand(migrateArgs(core, 'auth0', file, '--password-hashes', hashes));
    expect(second.code, second.stderr).toBe(0);
    expect(readReport(file).completed).toEqual([{ user: 'auth0|p1', record: 1, userId: expect.any(String), added: ['password hash'] }]);
    expect(await signIn(core, 'pat@example.com', 'pat-pw')).toBe('OK');
  });

  it('a dry run lists what a real run would complete and changes nothing', async () => {
    const file = temp.file('users.ndjson', ndjson([auth0User('p1', 'pat@example.com', 'g-p1')]));
    const hashes = temp.file('hashes.ndjson', ndjson([hashLine('p1', 'pat@example.com', 'pat-pw')]));
    expect((await runCommand(migrateArgs(core, 'auth0', file))).code).toBe(0);
    const report = temp.file('dry.json', '');
    const dry = await runCommand(migrateArgs(core, 'auth0', file, '--password-hashes', hashes, '--dry-run', '--report', report));
    expect(dry.code, dry.stderr).toBe(0);
    const written = JSON.parse(fs.readFileSync(report, 'utf8'));
    expect(written.totals).toMatchObject({ read: 1, wouldImport: 0, wouldComplete: 1, alreadyImported: 0 });
    expect(written.completed).toEqual([{ user: 'auth0|p1', record: 1, userId: expect.any(String), added: ['emailpassword login method'] }]);
    expect(dry.stdout).toContain(
      'Would be completed (users in the core before, lacking some of the export):\n  auth0|p1 (record 1): lacks emailpassword login method',
    );
    expect(recipeIds(await userById(core, 'auth0|p1'))).toEqual(['thirdparty']);
  });
});
