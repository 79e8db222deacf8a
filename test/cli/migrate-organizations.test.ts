import crypto from 'node:crypto';
import fs from 'node:fs';
import { FirebaseScrypt } from 'firebase-scrypt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helper.js';
import { CLERK_CSV_HEADER, clerkApiUser, keycloakPbkdf2Credential, keycloakRealm } from './carry/exports.js';
import { bcryptHash, firebaseJsonExport, hashConfigBlock, hashParams, makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, signIn, startCore, userById, type RunningCore } from './harness.js';

// `identity-core migrate auth0 … --orgs orgs.json`: the organizations become tenants before any user is sent, the
// report lists them, a rerun finds them, a dry run creates none, a collision stops the run, undo removes them.

const headers = { 'api-key': apiKey };
const ndjson = (lines: object[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const reportOf = (file: string) => JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));

async function tenantsOf(core: RunningCore): Promise<{ tenantId: string; firstFactors?: string[] }[]> {
  const reply = await call(core.t.app, 'GET', '/recipe/multitenancy/tenant/list/v2', { headers });
  return (reply.json?.tenants as { tenantId: string; firstFactors?: string[] }[]).map(({ tenantId, firstFactors }) => ({
    tenantId,
    ...(firstFactors !== undefined && { firstFactors }),
  }));
}

async function userCount(core: RunningCore): Promise<number> {
  const reply = await call(core.t.app, 'GET', '/users/count', { query: { includeAllTenants: 'true' }, headers });
  return reply.json?.count as number;
}

function auth0Export(temp: ReturnType<typeof makeTempDir>, prefix: string, people: string[]) {
  const users = temp.file(
    `${prefix}-users.ndjson`,
    ndjson(
      people.map((name) => ({
        user_id: `auth0|${name}`,
        email: `${name}@example.com`,
        email_verified: true,
        identities: [{ provider: 'auth0', user_id: name, connection: 'Username-Password-Authentication' }],
      })),
    ),
  );
  const hashes = temp.file(
    `${prefix}-hashes.ndjson`,
    ndjson(people.map((name) => ({ _id: { $oid: name }, email: `${name}@example.com`, passwordHash: bcryptHash(`${name}-pw`) }))),
  );
  return { users, hashes };
}

const connections = [
  { connection_id: 'con_db', connection: { name: 'Username-Password-Authentication', strategy: 'auth0' } },
  { connection_id: 'con_g', connection: { name: 'google-oauth2', strategy: 'google-oauth2' } },
  { connection_id: 'con_s', connection: { name: 'acme-saml', strategy: 'samlp' } },
];

describe('migrate auth0 --orgs: tenants', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore();
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  // Organizations without members among the export's users: every user stays in public, which any core stores.
  const orgs = () =>
    temp.file(
      'orgs.json',
      JSON.stringify([
        {
          id: 'org_a1',
          name: 'acme',
          display_name: 'Acme Corp',
          metadata: { plan: 'gold' },
          members: [],
          enabled_connections: connections,
        },
        { id: 'org_g2', name: 'Globex', members: [{ user_id: 'auth0|elsewhere', roles: [] }], enabled_connections: [connections[1]] },
      ]),
    );

  it('a dry run creates no tenant and lists the tenants it would create', async () => {
    const { users, hashes } = auth0Export(temp, 'dry', ['dora']);
    const result = await runCommand(
      migrateArgs(
        core,
        'auth0',
        users,
        '--password-hashes',
        hashes,
        '--orgs',
        orgs(),
        '--dry-run',
        '--report',
        `${users}.migrate-report.json`,
      ),
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('tenants: acme (new), globex (new)');
    expect(result.stdout).toContain('  acme from org_a1 (would be created; login methods: emailpassword, thirdparty)');
    expect(await tenantsOf(core)).toEqual([{ tenantId: 'public' }]);
    expect(await userCount(core)).toBe(0);
    expect(reportOf(users).tenants.map((tenant: { tenantId: string; existsInCore: boolean; createdByRun: boolean }) => tenant)).toEqual([
      expect.objectContaining({ tenantId: 'acme', existsInCore: false, createdByRun: false }),
      expect.objectContaining({ tenantId: 'globex', existsInCore: false, createdByRun: false }),
    ]);
  });

  it('creates the tenants first with their connections as login methods, reports them, finds them on a rerun, and undo removes them', async () => {
    const { users, hashes } = auth0Export(temp, 'run', ['ann', 'ben']);
    const args = migrateArgs(core, 'auth0', users, '--password-hashes', hashes, '--orgs', orgs());

    const first = await runCommand(args);
    expect(first.code).toBe(0);
    expect(await tenantsOf(core)).toEqual([
      { tenantId: 'public' },
      { tenantId: 'acme', firstFactors: ['emailpassword', 'thirdparty'] },
      { tenantId: 'globex', firstFactors: ['thirdparty'] },
    ]);
    const report = reportOf(users);
    expect(report.tenants).toEqual([
      {
        tenantId: 'acme',
        sourceId: 'org_a1',
        name: 'acme',
        displayName: 'Acme Corp',
        metadata: { plan: 'gold' },
        firstFactors: ['emailpassword', 'thirdparty'],
        notCarried: [
          'connection acme-saml (samlp): enterprise connections stay at Auth0; configure the provider in the tenant',
          'metadata: the core has no place for it (kept in the report)',
        ],
        createdByRun: true,
      },
      {
        tenantId: 'globex',
        sourceId: 'org_g2',
        name: 'Globex',
        displayName: null,
        metadata: null,
        firstFactors: ['thirdparty'],
        notCarried: [],
        createdByRun: true,
      },
    ]);
    expect(report.totals).toMatchObject({ read: 2, imported: 2 });
    expect(await signIn(core, 'ann@example.com', 'ann-pw')).toBe('OK');

    // A fresh run of the same export: the tenants are there already (createdNew false), nothing is created twice.
    const again = await runCommand([...args, '--restart']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('tenants: 2 (0 created by this run)');
    expect(reportOf(users).tenants.map((tenant: { createdByRun: boolean }) => tenant.createdByRun)).toEqual([false, false]);
    expect(reportOf(users).totals).toMatchObject({ read: 2, imported: 0, alreadyImported: 2 });
    expect((await tenantsOf(core)).map((tenant) => tenant.tenantId)).toEqual(['public', 'acme', 'globex']);

    // The first run's report (kept by the fresh run) is the one that created them: its undo removes users and tenants.
    const kept = fs
      .readdirSync(temp.dir)
      .find((name) => name.startsWith('run-users.ndjson.migrate-report.') && name !== 'run-users.ndjson.migrate-report.json');
    expect(kept).toBeDefined();
    const undone = await runCommand(['migrate', 'undo', `${temp.dir}/${kept}`, '--core-url', core.url]);
    expect(undone.code).toBe(0);
    expect(undone.stdout).toContain('tenant acme: removed');
    expect(undone.stdout).toContain('tenant globex: removed');
    expect(await tenantsOf(core)).toEqual([{ tenantId: 'public' }]);
    expect(await userCount(core)).toBe(0);
  });

  it('two organizations on one tenant id stop the run before anything is sent, naming both', async () => {
    const { users, hashes } = auth0Export(temp, 'twin', ['cy']);
    const twins = temp.file(
      'twin-orgs.json',
      JSON.stringify([
        { id: 'org_1', name: 'Acme Inc', members: [] },
        { id: 'org_2', name: 'acme-inc', members: [] },
      ]),
    );
    const result = await runCommand(migrateArgs(core, 'auth0', users, '--password-hashes', hashes, '--orgs', twins));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('organizations org_1 and org_2 would both be tenant acme-inc');
    expect(await tenantsOf(core)).toEqual([{ tenantId: 'public' }]);
    expect(await userCount(core)).toBe(0);
    expect(fs.existsSync(`${users}.migrate-report.json`)).toBe(false);
  });

  it('--orgs is refused for another source', async () => {
    const result = await runCommand(migrateArgs(core, 'keycloak', 'realm.json', '--orgs', 'orgs.json'));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--orgs only applies to the auth0 source');
  });
});

// Members are sent with loginMethods[].tenantIds naming their tenants and their org roles assigned there.
describe('migrate auth0 --orgs: members in their tenants', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore();
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  it('places alice in acme, carol in globex, bob in both with one user id, org roles scoped to their tenant', async () => {
    const { users, hashes } = auth0Export(temp, 'members', ['alice', 'bob', 'carol']);
    const orgs = temp.file(
      'member-orgs.json',
      JSON.stringify([
        {
          id: 'org_a',
          name: 'acme',
          members: [
            { user_id: 'auth0|alice', roles: [{ id: 'rol_1', name: 'admin' }] },
            { user_id: 'auth0|bob', roles: [] },
          ],
          enabled_connections: [connections[0]],
        },
        {
          id: 'org_g',
          name: 'globex',
          members: [{ user_id: 'auth0|carol' }, { user_id: 'auth0|bob', roles: [{ name: 'member' }] }],
          enabled_connections: [connections[0]],
        },
      ]),
    );
    const result = await runCommand(migrateArgs(core, 'auth0', users, '--password-hashes', hashes, '--orgs', orgs));
    expect(result.code).toBe(0);
    expect(reportOf(users).totals).toMatchObject({ read: 3, imported: 3 });
    expect((await userById(core, 'auth0|alice'))?.tenantIds).toEqual(['acme', 'public']);
    expect((await userById(core, 'auth0|bob'))?.tenantIds).toEqual(['acme', 'globex', 'public']);
    expect((await userById(core, 'auth0|carol'))?.tenantIds).toEqual(['globex', 'public']);
    const listed = async (tenant: string) => {
      const reply = await call(core.t.app, 'GET', `/${tenant}/users`, { headers });
      return (reply.json?.users as { id: string }[]).map((user) => user.id).sort();
    };
    expect(await listed('acme')).toEqual([(await userById(core, 'auth0|alice')).id, (await userById(core, 'auth0|bob')).id].sort());
    const roles = async (tenant: string, userId: string) => {
      const reply = await call(core.t.app, 'GET', `/${tenant}/recipe/user/roles`, { query: { userId }, headers });
      return reply.json?.roles;
    };
    expect(await roles('acme', 'auth0|alice')).toEqual(['admin']);
    expect(await roles('globex', 'auth0|alice')).toEqual([]);
    expect(await roles('globex', 'auth0|bob')).toEqual(['member']);
    expect(await roles('public', 'auth0|alice')).toEqual([]);
    const signInAt = async (tenant: string, email: string, password: string) =>
      (await call(core.t.app, 'POST', `/${tenant}/recipe/signin`, { body: { email, password }, headers })).json?.status;
    expect(await signInAt('acme', 'alice@example.com', 'alice-pw')).toBe('OK');
    expect(await signInAt('globex', 'alice@example.com', 'alice-pw')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await signInAt('globex', 'bob@example.com', 'bob-pw')).toBe('OK');

    const undone = await runCommand(['migrate', 'undo', `${users}.migrate-report.json`, '--core-url', core.url]);
    expect(undone.code).toBe(0);
    expect(await tenantsOf(core)).toEqual([{ tenantId: 'public' }]);
  });
});

// Identity Platform: one run per tenant, each tenant's hashes signed with its own key, named in the core's
// idp_password_hashing_signer_keys by the tenant id.
describe('migrate firebase --tenant (Identity Platform)', () => {
  const temp = makeTempDir();
  const keys = { 'tenant-a': crypto.randomBytes(64).toString('base64'), 'tenant-b': crypto.randomBytes(64).toString('base64') };
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore({ idp_password_hashing_signer_keys: `tenant-a:${keys['tenant-a']},tenant-b:${keys['tenant-b']}` });
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  const tenantExport = async (tenant: 'tenant-a' | 'tenant-b', password: string, signerKey = keys[tenant]) => {
    const salt = crypto.randomBytes(12).toString('base64');
    const hasher = new FirebaseScrypt({ ...hashParams, signerKey });
    const file = temp.file(
      `${tenant}-${crypto.randomUUID()}.json`,
      firebaseJsonExport([{ localId: `${tenant}-ann`, email: 'ann@example.com', passwordHash: await hasher.hash(password, salt), salt }]),
    );
    const config = temp.file(`${tenant}-hash-config.txt`, hashConfigBlock.replace(hashParams.signerKey, signerKey));
    return { file, config };
  };

  it('checks the core against the tenant’s own key before anything is sent, and creates the tenant', async () => {
    const { file, config } = await tenantExport('tenant-a', 'pw-a');
    const result = await runCommand(migrateArgs(core, 'firebase', file, '--hash-config', config, '--tenant', 'tenant-a'));
    expect(result.stderr).toContain('hash self-check: the core verified a password hashed with --hash-config');
    expect((await tenantsOf(core)).map((tenant) => tenant.tenantId)).toContain('tenant-a');
    expect(reportOf(file).tenants).toEqual([expect.objectContaining({ tenantId: 'tenant-a', sourceId: 'tenant-a', createdByRun: true })]);
  });

  it('stops before anything is sent when the core holds another key under the tenant’s name', async () => {
    const { file, config } = await tenantExport('tenant-b', 'pw-b', crypto.randomBytes(64).toString('base64'));
    const result = await runCommand(migrateArgs(core, 'firebase', file, '--hash-config', config, '--tenant', 'tenant-b'));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('its idp_password_hashing_signer_keys entry tenant-b:<key> does not hold the tenant');
    expect((await tenantsOf(core)).map((tenant) => tenant.tenantId)).not.toContain('tenant-b');
  });
});

describe('migrate firebase --tenant: the same email in two tenants', () => {
  const temp = makeTempDir();
  const keys = { a: crypto.randomBytes(64).toString('base64'), b: crypto.randomBytes(64).toString('base64') };
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore({ idp_password_hashing_signer_keys: `tenant-a:${keys.a},tenant-b:${keys.b}` });
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  it('imports two users, each signing in with its own password in its own tenant only', async () => {
    for (const [tenant, key, password] of [
      ['tenant-a', keys.a, 'pw-a'],
      ['tenant-b', keys.b, 'pw-b'],
    ] as const) {
      const salt = crypto.randomBytes(12).toString('base64');
      const hash = await new FirebaseScrypt({ ...hashParams, signerKey: key }).hash(password, salt);
      const file = temp.file(
        `${tenant}.json`,
        firebaseJsonExport([{ localId: `${tenant}-ann`, email: 'ann@example.com', passwordHash: hash, salt }]),
      );
      const config = temp.file(`${tenant}-hash-config.txt`, hashConfigBlock.replace(hashParams.signerKey, key));
      const result = await runCommand(migrateArgs(core, 'firebase', file, '--hash-config', config, '--tenant', tenant));
      expect(result.code).toBe(0);
    }
    expect((await userById(core, 'tenant-a-ann'))?.tenantIds).toEqual(['tenant-a']);
    expect((await userById(core, 'tenant-b-ann'))?.tenantIds).toEqual(['tenant-b']);
    const signInAt = async (tenant: string, password: string) =>
      (await call(core.t.app, 'POST', `/${tenant}/recipe/signin`, { body: { email: 'ann@example.com', password }, headers })).json?.status;
    expect(await signInAt('tenant-a', 'pw-a')).toBe('OK');
    expect(await signInAt('tenant-b', 'pw-b')).toBe('OK');
    expect(await signInAt('tenant-a', 'pw-b')).toBe('WRONG_CREDENTIALS_ERROR');
  });
});

// Clerk (organizations from the API users' organization_memberships, tenant id the slug) and Keycloak 25+ (the realm
// export's organizations, tenant id the alias): each member signs in in its organization's tenant and nowhere else
// but public.
describe('migrate clerk and keycloak: organization members in their tenants', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore();
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  const signInAt = async (tenant: string, email: string, password: string) =>
    (await call(core.t.app, 'POST', `/${tenant}/recipe/signin`, { body: { email, password }, headers })).json?.status;
  const rolesIn = async (tenant: string, userId: string) =>
    (await call(core.t.app, 'GET', `/${tenant}/recipe/user/roles`, { query: { userId }, headers })).json?.roles;

  it('clerk: members by slug, each signing in in its tenant only, org roles assigned there', async () => {
    const membership = (id: string, slug: string, role: string) => ({
      object: 'organization_membership',
      role,
      organization: { object: 'organization', id, name: `${slug} Inc`, slug },
    });
    const csv = temp.file(
      'clerk-users.csv',
      [
        CLERK_CSV_HEADER,
        `user_ann,Ann,Lee,,ann@example.com,,ann@example.com,,,,,${bcryptHash('ann-pw')},bcrypt`,
        `user_ben,Ben,Ode,,ben@example.com,,ben@example.com,,,,,${bcryptHash('ben-pw')},bcrypt`,
      ].join('\n'),
    );
    const api = temp.file(
      'clerk-api.json',
      JSON.stringify([
        clerkApiUser('user_ann', 'ann@example.com', { organization_memberships: [membership('org_1', 'umbrella', 'org:admin')] }),
        clerkApiUser('user_ben', 'ben@example.com', { organization_memberships: [membership('org_2', 'initech', 'org:member')] }),
      ]),
    );
    const result = await runCommand(migrateArgs(core, 'clerk', csv, '--clerk-api', api));
    expect(result.code, result.stderr).toBe(0);
    expect(reportOf(csv).totals).toMatchObject({ read: 2, imported: 2 });
    expect((await userById(core, 'user_ann'))?.tenantIds).toEqual(['public', 'umbrella']);
    expect((await userById(core, 'user_ben'))?.tenantIds).toEqual(['initech', 'public']);
    expect(await signInAt('umbrella', 'ann@example.com', 'ann-pw')).toBe('OK');
    expect(await signInAt('initech', 'ann@example.com', 'ann-pw')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await signInAt('initech', 'ben@example.com', 'ben-pw')).toBe('OK');
    expect(await signInAt('umbrella', 'ben@example.com', 'ben-pw')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await rolesIn('umbrella', 'user_ann')).toEqual(['org:admin']);
    expect(await rolesIn('initech', 'user_ben')).toEqual(['org:member']);
    expect(await rolesIn('public', 'user_ann')).toEqual([]);
  });

  it('keycloak: members by id or username of the realm export’s organizations, each signing in in its tenant only', async () => {
    const realm = JSON.parse(
      keycloakRealm([
        {
          id: 'kc-alice',
          username: 'alice',
          enabled: true,
          email: 'alice@example.com',
          credentials: [keycloakPbkdf2Credential('alice-pw')],
        },
        { id: 'kc-bob', username: 'bob', enabled: true, email: 'bob@example.com', credentials: [keycloakPbkdf2Credential('bob-pw')] },
      ]),
    );
    realm.organizationsEnabled = true;
    realm.organizations = [
      { id: 'o-1', name: 'Hooli', alias: 'hooli', enabled: true, members: [{ id: 'kc-alice', username: 'alice' }] },
      { id: 'o-2', name: 'Pied Piper', alias: 'pied-piper', enabled: true, members: [{ username: 'bob' }] },
    ];
    const file = temp.file('orgs-realm.json', JSON.stringify(realm));
    const result = await runCommand(migrateArgs(core, 'keycloak', file));
    expect(result.code, result.stderr).toBe(0);
    expect(reportOf(file).totals).toMatchObject({ read: 2, imported: 2 });
    expect((await userById(core, 'kc-alice'))?.tenantIds).toEqual(['hooli', 'public']);
    expect((await userById(core, 'kc-bob'))?.tenantIds).toEqual(['pied-piper', 'public']);
    expect(await signInAt('hooli', 'alice@example.com', 'alice-pw')).toBe('OK');
    expect(await signInAt('pied-piper', 'alice@example.com', 'alice-pw')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await signInAt('pied-piper', 'bob@example.com', 'bob-pw')).toBe('OK');
    expect(await signInAt('hooli', 'bob@example.com', 'bob-pw')).toBe('WRONG_CREDENTIALS_ERROR');
  });
});
