import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, snapshot } from '../helper.js';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, signIn, startCore, userById, type RunningCore } from './harness.js';

// Issue 27, item 1: an export line whose old user id is the id of a user already in the core must not become a
// second user answering to that id.
describe('migrate: an old user id that is another user id in the core', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  let victimId: string;
  const hash = bcryptHash('attacker-pw');
  beforeAll(async () => {
    core = await startCore();
    const reply = await call(core.t.app, 'POST', '/recipe/signup', {
      body: { email: 'victim@example.com', password: 'victim-password-1' },
      headers: { 'api-key': apiKey },
    });
    victimId = reply.json.user.id;
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  const e030 = 'E030: Cannot create a userId mapping where the externalId is also a SuperTokens userID';
  const exportFile = () =>
    temp.file('users.ndjson', JSON.stringify({ externalUserId: victimId, email: 'attacker@example.com', passwordHash: hash }));

  it('is predicted by the dry run', async () => {
    const file = exportFile();
    const before = await snapshot(core.t.db);
    const result = await runCommand(migrateArgs(core, 'ndjson', file, '--dry-run'));
    expect(result.code).toBe(1);
    expect(await snapshot(core.t.db)).toEqual(before);
    expect(result.stdout).toBe(
      [
        `Dry run of ${file} (ndjson) into ${core.url}`,
        '  users read                                 1',
        '  would be imported                          0',
        '  already in the core before this run        0',
        '  would be completed                         0',
        '  would fail                                 1',
        '  invalid                                    0',
        '  skipped                                    0',
        '  imported with some login methods left out  0',
        '  imported without some of their data        0',
        '',
        'Would not be imported:',
        `  ${victimId} (record 1, failed in the core): ${e030}`,
        '',
      ].join('\n'),
    );
  });

  it('is refused by the core, and the victim keeps its id alone', async () => {
    const file = exportFile();
    const result = await runCommand(migrateArgs(core, 'ndjson', file));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      [
        `Migration of ${file} (ndjson) into ${core.url}`,
        '  users read                                 1',
        '  imported                                   0',
        '  already in the core before this run        0',
        '  completed with what they lacked            0',
        '  failed                                     1',
        '  invalid                                    0',
        '  skipped                                    0',
        "  still in the core's queue                  0",
        '  imported with some login methods left out  0',
        '  imported without some of their data        0',
        '',
        'Not imported:',
        `  ${victimId} (record 1, failed in the core): ${e030}`,
        '',
        `Report: ${file}.migrate-report.json`,
        '',
      ].join('\n'),
    );
    expect(await signIn(core, 'attacker@example.com', 'attacker-pw')).toBe('WRONG_CREDENTIALS_ERROR');
    expect((await userById(core, victimId)).emails).toEqual(['victim@example.com']);
  });
});
