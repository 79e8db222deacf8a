import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helper.js';
import { keycloakPbkdf2Credential, keycloakRealm } from './carry/exports.js';
import { makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, startCore, userById, type RunningCore } from './harness.js';

// Keycloak realms migrated by the command, one realm per run, each its own tenant: from realm files and from the
// folders `kc.sh export --dir` writes.

const headers = { 'api-key': apiKey };
const reportOf = (file: string) => JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));

async function signInAt(core: RunningCore, tenant: string, email: string, password: string): Promise<string> {
  const reply = await call(core.t.app, 'POST', `/${tenant}/recipe/signin`, { body: { email, password }, headers });
  return reply.json?.status ?? `HTTP ${reply.statusCode}`;
}

async function tenantIdsOfCore(core: RunningCore): Promise<string[]> {
  const reply = await call(core.t.app, 'GET', '/recipe/multitenancy/tenant/list/v2', { headers });
  return (reply.json?.tenants as { tenantId: string }[]).map((tenant) => tenant.tenantId);
}

describe('migrate keycloak --tenant: realms as tenants', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore();
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  const realmFile = (name: string, realm: string, users: object[], organizations: object[] = []) => {
    const exported = JSON.parse(keycloakRealm(users)) as Record<string, unknown>;
    return temp.file(name, JSON.stringify({ ...exported, id: realm, realm, organizations }));
  };

  it('one run per realm with --tenant: the same email in two realms is two users, each signing in only in its realm', async () => {
    const first = realmFile('north-realm.json', 'north', [
      { id: 'n-ann', username: 'ann', enabled: true, email: 'ann@example.com', credentials: [keycloakPbkdf2Credential('north-pw')] },
    ]);
    const second = realmFile('south-realm.json', 'south', [
      { id: 's-ann', username: 'ann', enabled: true, email: 'ann@example.com', credentials: [keycloakPbkdf2Credential('south-pw')] },
    ]);

    expect((await runCommand(migrateArgs(core, 'keycloak', first, '--tenant', 'north'))).code).toBe(0);
    expect((await runCommand(migrateArgs(core, 'keycloak', second, '--tenant', 'south'))).code).toBe(0);

    expect(await tenantIdsOfCore(core)).toEqual(expect.arrayContaining(['north', 'south']));
    expect((await userById(core, 'n-ann'))?.tenantIds).toEqual(['north']);
    expect((await userById(core, 's-ann'))?.tenantIds).toEqual(['south']);
    expect(await signInAt(core, 'north', 'ann@example.com', 'north-pw')).toBe('OK');
    expect(await signInAt(core, 'south', 'ann@example.com', 'south-pw')).toBe('OK');
    expect(await signInAt(core, 'north', 'ann@example.com', 'south-pw')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await signInAt(core, 'public', 'ann@example.com', 'north-pw')).toBe('WRONG_CREDENTIALS_ERROR');
  });
});

// `kc.sh export --dir <dir>` writes `<realm>-realm.json` and, by default, the users in `<realm>-users-<n>.json` files.
describe('migrate keycloak <folder>: an export written by kc.sh export --dir', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore();
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  const person = (id: string, email: string, password: string) => ({
    id,
    username: id,
    enabled: true,
    email,
    credentials: [keycloakPbkdf2Credential(password, 1000)],
  });
  const write = (folder: string, name: string, content: object) => temp.file(`${folder}/${name}`, JSON.stringify(content));
  const realmOnly = (realm: string, organizations: object[] = []) => {
    const { users: _users, ...settings } = JSON.parse(keycloakRealm([])) as Record<string, unknown>;
    return { ...settings, id: realm, realm, organizations };
  };

  it('reads the realm file, then its users files in order, and leaves the master realm alone', async () => {
    fs.mkdirSync(`${temp.dir}/one`);
    write('one', 'acme-realm.json', realmOnly('acme', [{ id: 'o1', alias: 'red', enabled: true, members: [{ id: 'k-amy' }] }]));
    // Part 10 after part 2: numbers, not names, order them.
    write('one', 'acme-users-10.json', { realm: 'acme', users: [person('k-cal', 'cal@example.com', 'cal-pw')] });
    write('one', 'acme-users-2.json', { realm: 'acme', users: [person('k-amy', 'amy@example.com', 'amy-pw')] });
    write('one', 'master-realm.json', realmOnly('master'));
    write('one', 'master-users-0.json', { realm: 'master', users: [person('k-admin', 'admin@example.com', 'admin-pw')] });

    const result = await runCommand(migrateArgs(core, 'keycloak', `${temp.dir}/one`));

    expect(result.code).toBe(0);
    const report = reportOf(`${temp.dir}/one/acme-realm.json`);
    expect(report.totals).toMatchObject({ read: 2, imported: 2 });
    expect(report.tenants.map((tenant: { tenantId: string }) => tenant.tenantId)).toEqual(['red']);
    expect((await userById(core, 'k-amy'))?.tenantIds).toEqual(['public', 'red']);
    expect((await userById(core, 'k-cal'))?.tenantIds).toEqual(['public']);
    expect(await userById(core, 'k-admin')).toBeUndefined();
    expect(await signInAt(core, 'red', 'amy@example.com', 'amy-pw')).toBe('OK');
    expect(await signInAt(core, 'public', 'cal@example.com', 'cal-pw')).toBe('OK');
  });

  it('a folder of several realms needs --tenant naming one; each realm is its own tenant', async () => {
    fs.mkdirSync(`${temp.dir}/two`);
    for (const realm of ['east', 'west']) {
      write('two', `${realm}-realm.json`, realmOnly(realm));
      write('two', `${realm}-users-0.json`, { realm, users: [person(`${realm}-bo`, 'bo@example.com', `${realm}-pw`)] });
    }

    const refused = await runCommand(migrateArgs(core, 'keycloak', `${temp.dir}/two`));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('holds the realms east, west: migrate one realm per run with --tenant <realm>');
    const unknown = await runCommand(migrateArgs(core, 'keycloak', `${temp.dir}/two`, '--tenant', 'north'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('holds no realm named north (it holds east, west)');

    for (const realm of ['east', 'west']) {
      expect((await runCommand(migrateArgs(core, 'keycloak', `${temp.dir}/two`, '--tenant', realm))).code).toBe(0);
      expect(reportOf(`${temp.dir}/two/${realm}-realm.json`).totals).toMatchObject({ read: 1, imported: 1 });
    }
    expect((await userById(core, 'east-bo'))?.tenantIds).toEqual(['east']);
    expect((await userById(core, 'west-bo'))?.tenantIds).toEqual(['west']);
    expect(await signInAt(core, 'east', 'bo@example.com', 'east-pw')).toBe('OK');
    expect(await signInAt(core, 'west', 'bo@example.com', 'east-pw')).toBe('WRONG_CREDENTIALS_ERROR');
  });
});
