import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, countRows } from '../helper.js';
import { firebaseJsonExport, firebasePassword, hashConfigBlock, makeTempDir, type ExportedPassword } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, startCore, userById, type RunningCore } from './harness.js';

const created = 1_600_000_000_000;
const headers = { 'api-key': apiKey };

interface SignedIn {
  userId: string;
  recipeUserId: string;
}

async function byPassword(core: RunningCore, email: string, password: string): Promise<SignedIn> {
  const reply = await call(core.t.app, 'POST', '/recipe/signin', { body: { email, password }, headers });
  expect(reply.json).toMatchObject({ status: 'OK' });
  return { userId: reply.json.user.id, recipeUserId: reply.json.recipeUserId };
}

async function byProvider(
  core: RunningCore,
  thirdPartyId: string,
  thirdPartyUserId: string,
  email: string,
): Promise<SignedIn & { createdNewUser: boolean }> {
  const body = { thirdPartyId, thirdPartyUserId, email: { id: email, isVerified: true } };
  const reply = await call(core.t.app, 'POST', '/recipe/signinup', { body, headers });
  expect(reply.json).toMatchObject({ status: 'OK' });
  return { userId: reply.json.user.id, recipeUserId: reply.json.recipeUserId, createdNewUser: reply.json.createdNewUser };
}

async function byPhoneCode(core: RunningCore, phoneNumber: string): Promise<SignedIn & { createdNewUser: boolean }> {
  const code = await call(core.t.app, 'POST', '/recipe/signinup/code', { body: { phoneNumber }, headers });
  expect(code.json).toMatchObject({ status: 'OK' });
  const { preAuthSessionId, linkCode } = code.json;
  const reply = await call(core.t.app, 'POST', '/recipe/signinup/code/consume', { body: { preAuthSessionId, linkCode }, headers });
  expect(reply.json).toMatchObject({ status: 'OK' });
  return { userId: reply.json.user.id, recipeUserId: reply.json.recipeUserId, createdNewUser: reply.json.createdNewUser };
}

describe('migrate keeps every login method of a person as one user', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  let alice: ExportedPassword;
  let bob: ExportedPassword;
  let hashConfig: string;
  beforeAll(async () => {
    core = await startCore();
    [alice, bob] = await Promise.all([firebasePassword('alice-pw'), firebasePassword('bob-pw')]);
    hashConfig = temp.file('hash-config.txt', hashConfigBlock);
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  it('imports a Firebase password + Google + phone user as one user that each method signs in to, and undo removes it whole', async () => {
    const file = temp.file(
      'linked.json',
      firebaseJsonExport([
        {
          localId: 'fb-alice',
          email: 'alice@example.com',
          emailVerified: true,
          passwordHash: alice.passwordHash,
          salt: alice.salt,
          phoneNumber: '+14155552671',
          createdAt: String(created),
          providerUserInfo: [
            { providerId: 'password', email: 'alice@example.com' },
            { providerId: 'google.com', rawId: '106344558822', email: 'alice@example.com' },
            { providerId: 'phone', phoneNumber: '+14155552671' },
          ],
        },
        {
          localId: 'fb-bob',
          email: 'bob@example.com',
          passwordHash: bob.passwordHash,
          salt: bob.salt,
          createdAt: String(created + 1),
          providerUserInfo: [{ providerId: 'github.com', rawId: 'gh-7', email: 'bob@github.example' }],
        },
        // Another person claiming Alice's Google account: the first record wins, in the dry run as in the real run.
        {
          localId: 'fb-mallory',
          email: 'mallory@example.com',
          createdAt: String(created + 2),
          providerUserInfo: [{ providerId: 'google.com', rawId: '106344558822', email: 'mallory@example.com' }],
        },
      ]),
    );
    const args = migrateArgs(core, 'firebase', file, '--hash-config', hashConfig);

    const dryReportPath = temp.file('dry.json', '');
    const dryRun = await runCommand([...args, '--dry-run', '--report', dryReportPath]);
    const dryReport = JSON.parse(fs.readFileSync(dryReportPath, 'utf8'));
    expect(dryReport.totals).toMatchObject({ read: 3, wouldImport: 2, invalid: 1 });
    expect(dryRun.stdout).not.toContain('Login methods not imported');

    const result = await runCommand(args);
    expect(result.code).toBe(1);
    const report = JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
    expect(report.totals).toMatchObject({ read: 3, imported: 2, alreadyImported: 0, failed: 0, invalid: 1, withCollisions: 0 });
    expect(report.collisions).toEqual([]);
    expect(report.notImported).toEqual([
      {
        user: 'fb-mallory',
        record: 3,
        stage: 'duplicate',
        reason: 'same google account 106344558822 as record 1, which is imported instead (the first record wins)',
      },
    ]);

    // One user each, counted once, with every login method.
    expect((await call(core.t.app, 'GET', '/users/count', { headers })).json).toMatchObject({ count: 2 });
    expect(await countRows(core.t.db, 'users')).toBe(5);
    const user = await userById(core, 'fb-alice');
    expect(user).toMatchObject({
      id: 'fb-alice',
      isPrimaryUser: true,
      emails: ['alice@example.com'],
      phoneNumbers: ['+14155552671'],
      thirdParty: [{ id: 'google', userId: '106344558822' }],
    });
    expect(user.loginMethods.map((method: { recipeId: string }) => method.recipeId).sort()).toEqual([
      'emailpassword',
      'passwordless',
      'thirdparty',
    ]);
    const methodOf = (recipeId: string) => user.loginMethods.find((method: { recipeId: string }) => method.recipeId === recipeId);

    // Signing in by password, by Google sign-in-up and by an SMS code all answer the same user.
    const password = await byPassword(core, 'alice@example.com', 'alice-pw');
    const google = await byProvider(core, 'google', '106344558822', 'alice@example.com');
    const phone = await byPhoneCode(core, '+14155552671');
    expect([password.userId, google.userId, phone.userId]).toEqual(['fb-alice', 'fb-alice', 'fb-alice']);
    expect([google.createdNewUser, phone.createdNewUser]).toEqual([false, false]);
    expect(google.recipeUserId).toBe(methodOf('thirdparty').recipeUserId);
    expect(phone.recipeUserId).toBe(methodOf('passwordless').recipeUserId);
    expect((await byPassword(core, 'bob@example.com', 'bob-pw')).userId).toBe('fb-bob');
    expect((await byProvider(core, 'github', 'gh-7', 'bob@github.example')).userId).toBe('fb-bob');

    // A fresh run recognises both users whole in the core and sends nothing.
    const again = await runCommand([...args, '--restart']);
    const againReport = JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
    expect(againReport.totals).toMatchObject({ read: 3, imported: 0, alreadyImported: 2, failed: 0, invalid: 1 });
    expect(again.stdout).not.toContain('conflicts with another user');

    // The fresh run kept the first run's report, and undo removes every login method of the users it created.
    const kept = fs.readdirSync(path.dirname(file)).filter((name) => /\.migrate-report\.previous-.+\.json$/.test(name));
    expect(kept).toHaveLength(1);
    expect(again.stderr).toContain(`the report of the previous run is kept as ${path.join(path.dirname(file), kept[0])}`);
    expect(JSON.parse(fs.readFileSync(path.join(path.dirname(file), kept[0]), 'utf8'))).toEqual(report);
    const undo = await runCommand(['migrate', 'undo', path.join(path.dirname(file), kept[0]), '--core-url', core.url]);
    expect(undo.code).toBe(0);
    expect(await countRows(core.t.db, 'users')).toBe(0);
    expect((await call(core.t.app, 'GET', '/users/count', { headers })).json).toMatchObject({ count: 0 });
  });
});
