import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, countRows } from '../helper.js';
import { firebaseJsonExport, firebasePassword, hashConfigBlock, hashParams, makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, runNotingRequests, signIn, startCore, type RunningCore } from './harness.js';

async function importedMetric(core: RunningCore): Promise<number> {
  const reply = await call(core.t.app, 'GET', '/metrics', { headers: { 'api-key': apiKey } });
  const line = reply.body.split('\n').find((text) => text.startsWith('identity_core_bulk_import_users_total{result="imported"}'));
  return Number(line?.split(' ').at(-1));
}

describe("migrate: the core is checked against the export's hash parameters before a single user is sent", () => {
  const temp = makeTempDir();
  let core: RunningCore;
  let file: string;
  beforeAll(async () => {
    core = await startCore();
    const alice = await firebasePassword('alice-pw');
    file = temp.file('users.json', firebaseJsonExport([{ localId: 'fb-alice', email: 'alice@example.com', ...alice }]));
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  it.each([
    ['the dry run', ['--dry-run']],
    ['the run', []],
  ])('%s stops when the core has another signer key than --hash-config, importing nothing', async (_name, extra) => {
    const otherKey = crypto.randomBytes(64).toString('base64');
    const hashConfig = temp.file('other-key.txt', hashConfigBlock.replace(hashParams.signerKey, otherKey));
    const result = await runCommand([...migrateArgs(core, 'firebase', file, '--hash-config', hashConfig), ...extra]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "hash self-check failed: the core does not verify a password hashed here with --hash-config, so the core's idp_password_hashing_signer_key is not the base64_signer_key of --hash-config.",
    );
    expect(result.stderr).toContain('Nothing was imported.');
    expect(await countRows(core.t.db, 'users')).toBe(0);
    expect(await countRows(core.t.db, 'bulk_import_users')).toBe(0);
    expect(fs.existsSync(`${file}.migrate-state.json`)).toBe(false);
  });

  it('with the right key, says so and leaves no trace of its synthetic user; the import counts in the metrics', async () => {
    const hashConfig = temp.file('hash-config.txt', hashConfigBlock);
    const dry = await runCommand([...migrateArgs(core, 'firebase', file, '--hash-config', hashConfig), '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(
      'hash self-check: the core verified a password hashed with --hash-config (signer key matches; it takes the parameters)',
    );
    expect(await countRows(core.t.db, 'users')).toBe(0);

    const before = await importedMetric(core);
    const run = await runCommand(migrateArgs(core, 'firebase', file, '--hash-config', hashConfig));
    expect(run.code, run.stderr).toBe(0);
    // The command's imports (importNow requests) count in the bulk-import metric.
    expect((await importedMetric(core)) - before).toBe(1);
    const { rows } = await core.t.db.pool.query<{ email: string }>('SELECT email FROM users');
    expect(rows).toEqual([{ email: 'alice@example.com' }]);
    expect(await signIn(core, 'alice@example.com', 'alice-pw')).toBe('OK');
  });

  it("stops, importing nothing, when the core would refuse the export's mem_cost and rounds (its cost limit is lower)", async () => {
    const strict = await startCore({ imported_hash_max_memory_kib: 2048 });
    try {
      const hashConfig = temp.file('hash-config.txt', hashConfigBlock);
      const result = await runCommand(migrateArgs(strict, 'firebase', file, '--hash-config', hashConfig));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('hash self-check: the core refused a hash made with --hash-config:');
      expect(result.stderr).toContain('imported_hash_max_memory_kib');
      expect(await countRows(strict.t.db, 'users')).toBe(0);
      expect(await countRows(strict.t.db, 'bulk_import_users')).toBe(0);
    } finally {
      await strict.t.close();
    }
  });

  // A dry run through a proxy that notes every request; withoutCheckRoute: it answers 404 for the check, as an older core.
  const dryRunThroughProxy = (hashConfig: string, withoutCheckRoute: boolean) =>
    runNotingRequests(
      core,
      (throughProxy) => [...migrateArgs(throughProxy, 'firebase', file, '--hash-config', hashConfig), '--dry-run'],
      (path) => (withoutCheckRoute && path === '/bulk-import/password-hash/check' ? { status: 404, body: 'Not Found' } : undefined),
    );

  it('a dry run asks the core to verify the hash and writes nothing to it', async () => {
    const hashConfig = temp.file('hash-config.txt', hashConfigBlock);
    const { result: dry, requests } = await dryRunThroughProxy(hashConfig, false);
    expect(dry.code, dry.stderr).toBe(0);
    // One check verifies a password (the signer key), one asks whether the export's parameters would be imported.
    expect(requests.filter((request) => request === 'POST /bulk-import/password-hash/check')).toHaveLength(2);
    expect(
      requests.filter((request) => ['POST /bulk-import/import', 'POST /user/remove', 'POST /recipe/signin'].includes(request)),
    ).toEqual([]);
  });

  it.each([
    ['matches', hashParams.signerKey, 0],
    ['differs', crypto.randomBytes(64).toString('base64'), 2],
  ])('against a core without the check route, imports, signs in as and removes a synthetic user: the key %s', async (_name, key, code) => {
    const hashConfig = temp.file('fallback.txt', hashConfigBlock.replace(hashParams.signerKey, key));
    const usersBefore = await countRows(core.t.db, 'users');
    const { result, requests } = await dryRunThroughProxy(hashConfig, true);
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toContain(
      code === 0
        ? 'hash self-check: the core verified a password hashed with --hash-config'
        : "hash self-check failed: the core does not verify a password hashed here with --hash-config, so the core's idp_password_hashing_signer_key",
    );
    expect(requests).toEqual(expect.arrayContaining(['POST /bulk-import/import', 'POST /recipe/signin', 'POST /user/remove']));
    expect(await countRows(core.t.db, 'users')).toBe(usersBefore);
  });

  it("after a finished run, a run that fails the self-check changes none of that run's files", async () => {
    const hashConfig = temp.file('hash-config.txt', hashConfigBlock);
    const finished = await runCommand(migrateArgs(core, 'firebase', file, '--hash-config', hashConfig));
    expect(finished.code, finished.stderr).toBe(0);
    const snapshot = () =>
      Object.fromEntries(
        fs
          .readdirSync(temp.dir)
          .sort()
          .map((name) => [name, fs.readFileSync(`${temp.dir}/${name}`, 'utf8')]),
      );
    const before = snapshot();
    expect(Object.keys(before)).toContain('users.json.migrate-report.json');

    const otherKey = temp.file('another-key.txt', hashConfigBlock.replace(hashParams.signerKey, crypto.randomBytes(64).toString('base64')));
    const usersBefore = await countRows(core.t.db, 'users');
    // --restart: a fresh run, which would keep the finished run's report aside once the check passed.
    const failed = await runCommand([...migrateArgs(core, 'firebase', file, '--hash-config', otherKey), '--restart']);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('hash self-check failed');
    const { ['another-key.txt']: written, ...after } = snapshot();
    expect(written).toBeDefined();
    expect(after).toEqual(before);
    expect(await countRows(core.t.db, 'users')).toBe(usersBefore);
  });
});
