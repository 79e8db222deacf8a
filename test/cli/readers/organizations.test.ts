import { afterAll, describe, expect, it } from 'vitest';
import type { SourceRecord } from '../../../src/cli/bulk-user.js';
import { CliError } from '../../../src/cli/cli-error.js';
import { parseMapping } from '../../../src/cli/mapping.js';
import { loadAuth0Organizations } from '../../../src/cli/organizations/auth0-orgs.js';
import { clerkOrganizations } from '../../../src/cli/organizations/clerk-orgs.js';
import { keycloakOrganizations } from '../../../src/cli/organizations/keycloak-orgs.js';
import { placeInTenants } from '../../../src/cli/organizations/memberships.js';
import { planOrganizations, type SourceOrganization } from '../../../src/cli/organizations/plan.js';
import { tenantIdFrom } from '../../../src/cli/organizations/tenant-id.js';
import { clerkApiUser } from '../carry/exports.js';
import { makeTempDir } from '../fixtures.js';

// What the command makes of each source's organizations before any core is asked: tenant ids, memberships, roles.

const temp = makeTempDir();
afterAll(() => temp.remove());

const defaults = { keepPublic: true, roles: 'scoped' as const };
const record = (externalUserId: string, extra: Partial<SourceRecord> = {}): SourceRecord => ({
  index: 0,
  key: externalUserId,
  collisions: [],
  user: { externalUserId, loginMethods: [{ recipeId: 'emailpassword', email: `${externalUserId}@example.com` }] },
  ...extra,
});

describe('tenant ids from source ids', () => {
  it.each([
    ['lower-cases and keeps a-z, 0-9 and -', 'Acme', 'acme'],
    ['turns each run of other characters into one -', 'Acme  Inc., (EU)', 'acme-inc-eu'],
    ['trims - at both ends', '__globex__', 'globex'],
    ['cuts at 64 characters, then trims', `${'a'.repeat(63)}_b`, 'a'.repeat(63)],
    ['suffixes a reserved word', 'Recipe', 'recipe-org'],
    ['suffixes public, the tenant every user has', 'PUBLIC', 'public-org'],
    ['suffixes a served path', 'bulk_import', 'bulk-import-org'],
    ['prefixes an id the core reads as an app', 'AppId-x', 'org-appid-x'],
    ['keeps an Auth0 id as it is', 'org_W8Zs1Pq', 'org-w8zs1pq'],
  ])('%s', (_what, source, expected) => {
    expect(tenantIdFrom(source)).toBe(expected);
  });

  it('leaves nothing of a name without a-z or 0-9', () => {
    expect(tenantIdFrom('日本')).toBeUndefined();
  });
});

describe('the mapping file organizations block', () => {
  it('defaults to scoped roles and members kept in public', () => {
    expect(parseMapping({}).organizations).toEqual({ keepPublic: true, roles: 'scoped' });
  });

  it('reads every key', () => {
    const mapping = parseMapping({
      organizations: { tenantId: 'id', keepPublic: false, roles: 'prefixed', firstFactors: ['emailpassword'] },
    });
    expect(mapping.organizations).toEqual({ tenantId: 'id', keepPublic: false, roles: 'prefixed', firstFactors: ['emailpassword'] });
  });

  it.each([
    [{ tenantId: 'email' }, 'organizations.tenantId takes name, id, slug or alias'],
    [{ keepPublic: 'yes' }, 'organizations.keepPublic takes true or false'],
    [{ roles: 'global' }, 'organizations.roles takes scoped or prefixed'],
    [{ fromClaim: 'x' }, 'unknown key(s) organizations.fromClaim (known: tenantId, keepPublic, roles, firstFactors)'],
    ['acme', 'organizations must be an object with tenantId, keepPublic, roles, firstFactors'],
  ])('refuses %j naming the key', (organizations, message) => {
    expect(() => parseMapping({ organizations })).toThrow(message);
  });
});

describe('planning tenants', () => {
  const organization = (sourceId: string, name: string): SourceOrganization => ({
    sourceId,
    fields: { id: sourceId, name },
    firstFactors: null,
    notCarried: [],
    members: new Map(),
  });

  it('stops on two organizations that map to one tenant id, naming both', () => {
    const attempt = () => planOrganizations([organization('org_1', 'Acme Inc'), organization('org_2', 'acme-inc')], 'name', defaults);
    expect(attempt).toThrow(CliError);
    expect(attempt).toThrow('organizations org_1 and org_2 would both be tenant acme-inc');
  });

  it('takes the field the mapping names, which parts the twins', () => {
    const plan = planOrganizations([organization('org_1', 'Acme Inc'), organization('org_2', 'acme-inc')], 'name', {
      ...defaults,
      tenantId: 'id',
    });
    expect(plan.tenants.map((tenant) => tenant.tenantId)).toEqual(['org-1', 'org-2']);
  });

  it('stops on a name that leaves no tenant id', () => {
    expect(() => planOrganizations([organization('org_9', '日本')], 'name', defaults)).toThrow(
      'organization org_9: name "日本" leaves no tenant id (a-z, 0-9)',
    );
  });
});

describe('auth0 --orgs', () => {
  const orgs = temp.file(
    'orgs.json',
    JSON.stringify([
      {
        id: 'org_acme1',
        name: 'acme',
        display_name: 'Acme Corp',
        metadata: { plan: 'gold' },
        branding: { logo_url: 'https://acme.example/logo.png' },
        members: [
          { user_id: 'auth0|alice', email: 'alice@example.com', name: 'Alice', roles: [{ id: 'rol_1', name: 'admin' }] },
          { user_id: 'auth0|bob', email: 'bob@example.com', name: 'Bob', roles: [] },
        ],
        enabled_connections: [
          {
            connection_id: 'con_1',
            assign_membership_on_login: false,
            connection: { name: 'Username-Password-Authentication', strategy: 'auth0' },
          },
          { connection_id: 'con_2', assign_membership_on_login: true, connection: { name: 'google-oauth2', strategy: 'google-oauth2' } },
          { connection_id: 'con_3', connection: { name: 'acme-saml', strategy: 'samlp' } },
        ],
      },
      {
        id: 'org_globex2',
        name: 'globex',
        members: [{ user_id: 'auth0|bob', roles: [{ name: 'member' }] }],
        enabled_connections: [{ connection_id: 'con_4', connection: { name: 'email', strategy: 'email' } }],
      },
      { id: 'org_none3', name: 'initech' },
    ]),
  );

  it('makes one tenant per organization, by name, with the factors of its connections and what is not carried', () => {
    const plan = planOrganizations(loadAuth0Organizations(orgs), 'name', defaults);
    expect(plan.tenants).toEqual([
      {
        tenantId: 'acme',
        sourceId: 'org_acme1',
        name: 'acme',
        displayName: 'Acme Corp',
        metadata: { plan: 'gold' },
        firstFactors: ['emailpassword', 'thirdparty'],
        notCarried: [
          'connection google-oauth2: assign_membership_on_login (members added at first login) is not kept',
          'connection acme-saml (samlp): enterprise connections stay at Auth0; configure the provider in the tenant',
          'branding: the core has no place for it',
          'metadata: the core has no place for it (kept in the report)',
        ],
      },
      {
        tenantId: 'globex',
        sourceId: 'org_globex2',
        name: 'globex',
        displayName: null,
        metadata: null,
        firstFactors: ['otp-email', 'link-email'],
        notCarried: [],
      },
      // No enabled_connections in the file: left to the SDK's recipes rather than shut.
      {
        tenantId: 'initech',
        sourceId: 'org_none3',
        name: 'initech',
        displayName: null,
        metadata: null,
        firstFactors: null,
        notCarried: [],
      },
    ]);
    expect([...plan.memberships]).toEqual([
      ['auth0|alice', [{ tenantId: 'acme', roles: ['admin'] }]],
      [
        'auth0|bob',
        [
          { tenantId: 'acme', roles: [] },
          { tenantId: 'globex', roles: ['member'] },
        ],
      ],
    ]);
  });

  it('puts members in their tenants and public, org roles scoped to the org, others untouched', () => {
    const plan = planOrganizations(loadAuth0Organizations(orgs), 'name', defaults);
    const alice = placeInTenants(record('auth0|alice', { carried: ['roles: viewer'] }), plan, undefined);
    const withRole = { ...alice };
    expect(withRole.user?.loginMethods).toEqual([
      { recipeId: 'emailpassword', email: 'auth0|alice@example.com', tenantIds: ['acme', 'public'] },
    ]);
    expect(alice.user?.userRoles).toEqual([{ role: 'admin', tenantIds: ['acme'] }]);
    expect(alice.carried).toEqual(['roles: viewer', 'roles in acme: admin', 'tenants: acme, public']);

    const bobRecord = record('auth0|bob');
    bobRecord.user!.userRoles = [{ role: 'viewer', tenantIds: ['public'] }];
    const bob = placeInTenants(bobRecord, plan, undefined);
    expect(bob.user?.loginMethods[0].tenantIds).toEqual(['acme', 'globex', 'public']);
    expect(bob.user?.userRoles).toEqual([
      { role: 'viewer', tenantIds: ['public'] },
      { role: 'member', tenantIds: ['globex'] },
    ]);
    expect(placeInTenants(record('auth0|carol'), plan, undefined)).toEqual(record('auth0|carol'));
  });

  it('renames or drops org roles through the mapping, prefixes them when told, leaves public when told', () => {
    const mapping = parseMapping({
      roles: { owner: [] },
      map: { admin: 'owner', member: [] },
      organizations: { roles: 'prefixed', keepPublic: false },
    });
    const plan = planOrganizations(loadAuth0Organizations(orgs), 'name', mapping.organizations);
    const alice = placeInTenants(record('auth0|alice'), plan, mapping);
    expect(alice.user?.loginMethods[0].tenantIds).toEqual(['acme']);
    expect(alice.user?.userRoles).toEqual([{ role: 'acme:owner', tenantIds: ['acme'] }]);
    const bobRecord = record('auth0|bob');
    bobRecord.user!.userRoles = [{ role: 'viewer', tenantIds: ['public'] }];
    // Out of public, an app-wide role goes with the user into each of its tenants.
    expect(placeInTenants(bobRecord, plan, mapping).user?.userRoles).toEqual([{ role: 'viewer', tenantIds: ['acme', 'globex'] }]);
  });

  it('refuses a file that is not an array of organizations with ids', () => {
    expect(() => loadAuth0Organizations(temp.file('bad-orgs.json', '{"organizations": []}'))).toThrow(
      'expected the organizations as one JSON array',
    );
    expect(() => loadAuth0Organizations(temp.file('noid-orgs.json', '[{"name":"acme"}]'))).toThrow('organization 1 has no id');
  });
});

describe('clerk organization_memberships', () => {
  it('makes a tenant per organization from its slug, else its id, with each member and role', () => {
    const users = new Map([
      [
        'user_a',
        clerkApiUser('user_a', 'a@example.com', {
          organization_memberships: [
            {
              role: 'org:admin',
              organization: { id: 'org_1', name: 'Acme', slug: 'acme', private_metadata: { tier: 2 }, max_allowed_memberships: 5 },
            },
            { role: 'org:member', organization: { id: 'org_2', name: 'No Slug Co', slug: null } },
          ],
        }),
      ],
      [
        'user_b',
        clerkApiUser('user_b', 'b@example.com', {
          organization_memberships: [{ role: 'org:member', organization: { id: 'org_1', slug: 'acme' } }],
        }),
      ],
    ]) as unknown as Map<string, Record<string, unknown>>;
    const plan = planOrganizations(clerkOrganizations(users), 'slug', defaults);
    expect(plan.tenants.map(({ tenantId, sourceId, metadata, notCarried }) => ({ tenantId, sourceId, metadata, notCarried }))).toEqual([
      {
        tenantId: 'acme',
        sourceId: 'org_1',
        metadata: { private_metadata: { tier: 2 } },
        notCarried: ['metadata: the core has no place for it (kept in the report)', 'max_allowed_memberships 5: the core sets no limit'],
      },
      { tenantId: 'org-2', sourceId: 'org_2', metadata: null, notCarried: [] },
    ]);
    expect(plan.memberships.get('user_a')).toEqual([
      { tenantId: 'acme', roles: ['org:admin'] },
      { tenantId: 'org-2', roles: ['org:member'] },
    ]);
    const mapping = parseMapping({ roles: { admin: [] }, map: { 'org:admin': 'admin' } });
    const placed = placeInTenants(record('user_a'), plan, mapping);
    expect(placed.user?.userRoles).toEqual([
      { role: 'admin', tenantIds: ['acme'] },
      { role: 'org:member', tenantIds: ['org-2'] },
    ]);
  });
});

describe('keycloak organizations', () => {
  it('makes a tenant per organization from its alias, members by user id or username', async () => {
    const realm = temp.file(
      'org-realm.json',
      JSON.stringify({
        realm: 'shop',
        organizationsEnabled: true,
        users: [{ id: 'u1', username: 'ann' }],
        organizations: [
          {
            id: 'kc-org-1',
            name: 'Acme Corp',
            alias: 'acme',
            enabled: true,
            domains: [{ name: 'acme.example', verified: true }],
            identityProviders: [{ alias: 'acme-oidc' }],
            members: [{ id: 'u1', username: 'ann', membershipType: 'MANAGED' }, { username: 'ben' }],
          },
          { id: 'kc-org-2', name: 'Old Co', alias: 'old', enabled: false, attributes: { region: ['eu'] } },
        ],
      }),
    );
    const plan = planOrganizations(await keycloakOrganizations(realm), 'alias', defaults);
    expect(plan.tenants).toEqual([
      {
        tenantId: 'acme',
        sourceId: 'kc-org-1',
        name: 'Acme Corp',
        displayName: null,
        metadata: null,
        firstFactors: null,
        notCarried: [
          'domains acme.example: the core does not route users by email domain',
          "identityProviders acme-oidc: configure them as the tenant's third-party providers",
        ],
      },
      {
        tenantId: 'old',
        sourceId: 'kc-org-2',
        name: 'Old Co',
        displayName: null,
        metadata: { region: ['eu'] },
        firstFactors: [],
        notCarried: [
          'enabled false: the tenant is created with no login method (firstFactors [])',
          'attributes: the core has no place for them (kept in the report)',
        ],
      },
    ]);
    expect([...plan.memberships.keys()]).toEqual(['u1', 'ben']);
    const ben = record('kc-ben');
    ben.user!.userMetadata = { username: 'ben' };
    expect(placeInTenants(ben, plan, undefined).user?.loginMethods[0].tenantIds).toEqual(['acme', 'public']);
  });

  it('finds none in a realm export without organizations', async () => {
    expect(await keycloakOrganizations(temp.file('plain-realm.json', JSON.stringify({ realm: 'r', users: [] })))).toEqual([]);
  });
});
