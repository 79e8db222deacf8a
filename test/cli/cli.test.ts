import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAZY_USAGE } from '../../src/cli/lazy.js';
import { MIGRATE_USAGE, parseMigrateArgs, type MigrateOptions } from '../../src/cli/options.js';
import { UNDO_USAGE } from '../../src/cli/undo.js';
import { firebaseJsonExport, makeTempDir } from './fixtures.js';
import { migrateArgs, runCommand, startCore, type RunningCore } from './harness.js';

const pick = ({ coreUrl, apiKey }: MigrateOptions) => ({ coreUrl, apiKey });

describe('identity-core command line', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  let file: string;
  beforeAll(async () => {
    core = await startCore();
    file = temp.file('users.ndjson', '{"email": "a@example.com"}\n');
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  it('prints help, and refuses unknown commands and sources', async () => {
    expect(await runCommand(['--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('migrate <source> <file> [options]') });
    expect(await runCommand(['migrate', '--help'])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('--check-password <email:pw>'),
    });
    expect(await runCommand([])).toMatchObject({ code: 2 });
    expect((await runCommand(['export'])).stderr).toContain('identity-core export: unknown command "export"');
    const unknownSource = await runCommand(['migrate', 'workos', file]);
    expect([unknownSource.code, unknownSource.stderr.trim()]).toEqual([
      2,
      'identity-core migrate: unknown source "workos": use one of firebase, auth0, cognito, okta, keycloak, clerk, supabase, kratos, hanko, csv, ndjson',
    ]);
    expect((await runCommand(['migrate', 'csv'])).stderr).toContain('expected <source> and <file>');
    expect((await runCommand(['migrate', 'csv', file, '--bogus'])).stderr).toContain("Unknown option '--bogus'");
  });

  it.each([
    [['--batch-size', '10001'], '--batch-size must be an integer from 1 to 10000'],
    [['--check-password', 'no-colon'], '--check-password takes <email>:<password>'],
    [['--map-provider', 'google.com'], '--map-provider takes <provider>=<thirdPartyId>, e.g. google.com=google'],
    [['--poll-interval', '0'], '--poll-interval must be a positive number of seconds'],
    [['--hash-config', 'x.txt'], '--hash-config only applies to the firebase source'],
    [['--password-hashes', 'x.ndjson'], '--password-hashes only applies to the auth0 source'],
  ])('rejects %j', (extra, message) => {
    expect(() => parseMigrateArgs(['csv', 'users.csv', ...extra], {})).toThrow(message);
  });

  it('reads its options, with the API key from the environment', () => {
    expect(
      parseMigrateArgs(
        ['firebase', 'users.json', '--check-password', 'a@example.com:pa:ss', '--map-provider', 'oidc.x=x', '--batch-size', '500'],
        { IDENTITY_CORE_API_KEY: 'from-env' },
      ),
    ).toEqual({
      source: 'firebase',
      file: 'users.json',
      coreUrl: 'http://localhost:3567',
      apiKey: 'from-env',
      format: undefined,
      hashConfigPath: undefined,
      passwordHashesPath: undefined,
      dryRun: false,
      checks: [{ email: 'a@example.com', password: 'pa:ss' }],
      reportPath: undefined,
      batchSize: 500,
      maxQueued: 100000,
      maxInvalid: Number.POSITIVE_INFINITY,
      pollIntervalMs: 1000,
      waitTimeoutMs: 600000,
      retries: 4,
      includeDisabled: false,
      providerOverrides: new Map([['oidc.x', 'x']]),
      restart: false,
      leaveUnconfiguredPasskeys: false,
    });
  });

  it('takes the core from IDENTITY_CORE_URL, the flags over the environment, and each subcommand names both in --help', () => {
    const env = { IDENTITY_CORE_URL: 'http://core.internal:3567', IDENTITY_CORE_API_KEY: 'from-env' };
    expect(pick(parseMigrateArgs(['csv', 'users.csv'], env))).toEqual({ coreUrl: 'http://core.internal:3567', apiKey: 'from-env' });
    expect(pick(parseMigrateArgs(['csv', 'users.csv', '--core-url', 'http://flag:1', '--api-key', 'from-flag'], env))).toEqual({
      coreUrl: 'http://flag:1',
      apiKey: 'from-flag',
    });
    expect(pick(parseMigrateArgs(['csv', 'users.csv'], { IDENTITY_CORE_URL: '', IDENTITY_CORE_API_KEY: '' }))).toEqual({
      coreUrl: 'http://localhost:3567',
      apiKey: undefined,
    });
    for (const usage of [MIGRATE_USAGE, LAZY_USAGE, UNDO_USAGE]) {
      expect(usage).toContain("one of the core's api_keys (default: env IDENTITY_CORE_API_KEY)");
    }
    expect(
      [MIGRATE_USAGE, LAZY_USAGE].map((usage) => usage.includes('(default: env IDENTITY_CORE_URL, else http://localhost:3567)')),
    ).toEqual([true, true]);
  });

  it('says when the API key is wrong or the core cannot be reached, before reading anything', async () => {
    const wrongKey = await runCommand([...migrateArgs(core, 'ndjson', file), '--api-key', 'not-the-right-key-at-all']);
    expect([wrongKey.code, wrongKey.stderr.trim()]).toEqual([
      2,
      `identity-core migrate: the core at ${core.url} answered 401 (the API key sent is not one of its api_keys): pass one of the core's api_keys with --api-key or in IDENTITY_CORE_API_KEY`,
    ]);
    const noKey = await runCommand(migrateArgs(core, 'ndjson', file), { env: {} });
    expect([noKey.code, noKey.stderr.trim()]).toEqual([
      2,
      `identity-core migrate: the core at ${core.url} answered 401 (no API key was sent): pass one of the core's api_keys with --api-key or in IDENTITY_CORE_API_KEY`,
    ]);

    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = await runCommand(['migrate', 'ndjson', file, '--core-url', `http://127.0.0.1:${port}`, '--retries', '0']);
    expect([down.code, down.stderr.trim()]).toEqual([
      2,
      `identity-core migrate: cannot reach the core at http://127.0.0.1:${port} (ECONNREFUSED): is it running? (--core-url or IDENTITY_CORE_URL)`,
    ]);

    const missing = await runCommand(migrateArgs(core, 'ndjson', `${temp.dir}/nope.ndjson`));
    expect([missing.code, missing.stderr.trim()]).toEqual([2, `identity-core migrate: ${temp.dir}/nope.ndjson does not exist`]);
  });

  it('says a missing report does not exist when asked to undo it', async () => {
    const missing = `${temp.dir}/users.csv.migrate-report.json`;
    expect(await runCommand(['migrate', 'undo', missing])).toEqual({
      code: 2,
      stdout: '',
      stderr: `\nidentity-core migrate: ${missing} does not exist: give the report the run wrote (<export>.migrate-report.json, or its --report)\n`,
    });
  });

  it('stops with the one line that explains, and leaves no files, when the export cannot be read with these options', async () => {
    const folder = `${temp.dir}/unreadable`;
    fs.mkdirSync(folder);
    const exported = `${folder}/users.json`;
    fs.writeFileSync(
      exported,
      firebaseJsonExport([{ localId: 'fb-1', email: 'a@example.com', passwordHash: 'aGFzaA==', salt: 'c2FsdA==' }]),
    );
    const noHashConfig =
      "\nidentity-core migrate: this export holds password hashes: pass --hash-config <file> with the project's hash_config block\n";
    expect(await runCommand(migrateArgs(core, 'firebase', exported))).toEqual({ code: 2, stdout: '', stderr: noHashConfig });
    expect(await runCommand(migrateArgs(core, 'firebase', exported, '--dry-run'))).toEqual({ code: 2, stdout: '', stderr: noHashConfig });
    expect(await runCommand(migrateArgs(core, 'csv', exported))).toEqual({
      code: 2,
      stdout: '',
      stderr: `\nidentity-core migrate: ${exported}: the first line must be a header naming the columns (email, passwordHash, hashingAlgorithm, phoneNumber, thirdPartyId, thirdPartyUserId, externalUserId, timeJoined, emailVerified, customPasswordHash)\n`,
    });
    expect(fs.readdirSync(folder)).toEqual(['users.json']);
  });

  it('tells the operator to configure the signer key when the core has none', async () => {
    const noKey = await startCore({ idp_password_hashing_signer_key: undefined });
    try {
      const line = JSON.stringify({
        email: 'a@example.com',
        passwordHash:
          '$f_scrypt$qZM035es5AXYqavsKD6/rhtxg7t5PhcyRgv5blc3doYbChX8keMfQLq1ra96O2Pf2TP/eZrR5xtPCYN6mX3ESA==$/cj0jC1br5o4+w==$m=14$r=8$s=Bw==',
      });
      const result = await runCommand(migrateArgs(noKey, 'ndjson', temp.file('scrypt.ndjson', line)));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'the core has no signer key, so it cannot take $f_scrypt$ hashes: set idp_password_hashing_signer_key',
      );
    } finally {
      await noKey.t.close();
    }
  });
});
