import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helper.js';
import { FakeProvider } from '../lazy-migration/fake-providers.js';
import { sourceEntry } from '../lazy-migration/sources.js';
import {
  CLERK_CSV_HEADER,
  clerkApiUser,
  keycloakArgon2Credential,
  keycloakPbkdf2Credential,
  keycloakRealm,
  pgCsv,
  SUPABASE_FACTOR_COLUMNS,
  SUPABASE_IDENTITY_COLUMNS,
  SUPABASE_USER_COLUMNS,
} from './carry/exports.js';
import { bcryptHash, firebaseJsonExport, firebasePassword, hashConfigBlock, makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, signIn, startCore, userById, type RunningCore } from './harness.js';

// Roles, groups, claims, second factors and re-enrolment marks carried by the migration command, per source, into a
// real core; what the core holds afterwards is read through its own routes.

const headers = { 'api-key': apiKey };

// Asked with the id the app knows (the old id), as the SDK asks.
async function rolesOf(core: RunningCore, userId: string): Promise<string[]> {
  const reply = await call(core.t.app, 'GET', '/recipe/user/roles', { query: { userId }, headers });
  return [...(reply.json?.roles as string[])].sort();
}

async function metadataOf(core: RunningCore, userId: string): Promise<Record<string, unknown>> {
  const reply = await call(core.t.app, 'GET', '/recipe/user/metadata', { query: { userId }, headers });
  return reply.json?.metadata as Record<string, unknown>;
}

async function permissionsOf(core: RunningCore, role: string): Promise<string[]> {
  const reply = await call(core.t.app, 'GET', '/recipe/role/permissions', { query: { role }, headers });
  return [...(reply.json?.permissions as string[])].sort();
}

function reportOf(file: string) {
  return JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
}

/** The mark with its time replaced, after checking the time is the run's. */
function markOf(metadata: Record<string, unknown>, before: number) {
  const mark = metadata.mfaReEnrolment as { markedAt: number };
  expect(mark.markedAt).toBeGreaterThanOrEqual(before);
  expect(mark.markedAt).toBeLessThanOrEqual(Date.now());
  return { ...mark, markedAt: 'the run' };
}

describe('migrate: roles, claims, second factors and re-enrolment marks', () => {
  const temp = makeTempDir();
  let cognito: FakeProvider;
  let okta: FakeProvider;
  let core: RunningCore;
  beforeAll(async () => {
    cognito = await FakeProvider.start('cognito', []);
    okta = await FakeProvider.start('okta', []);
    core = await startCore({
      lazy_migration: { sources: { cognito: sourceEntry('cognito', cognito.url), okta: sourceEntry('okta', okta.url) } },
    });
  });
  afterAll(async () => {
    await core.t.close();
    await cognito.close();
    await okta.close();
    temp.remove();
  });

  it('keycloak: realm roles, client roles and groups through the mapping, attributes apart by trust, passkeys marked', async () => {
    const mapping = temp.file(
      'keycloak-mapping.yaml',
      [
        'roles:',
        '  admin: [users:read, users:write]',
        '  editor: [posts:write]',
        '  buyer: []',
        'map:',
        '  app-admin: admin',
        '  /staff/editors: editor',
        '  shop/buyer: buyer',
        'userEditableClaims: [nickname]',
        '',
      ].join('\n'),
    );
    const file = temp.file(
      'acme-realm.json',
      keycloakRealm([
        {
          id: 'kc-alice',
          createdTimestamp: 1690000000000,
          username: 'alice',
          enabled: true,
          totp: false,
          emailVerified: true,
          firstName: 'Alice',
          lastName: 'Liddell',
          email: 'Alice@Example.com',
          attributes: { department: ['sales'], nickname: ['ally'] },
          credentials: [keycloakPbkdf2Credential('alice-pw')],
          federatedIdentities: [{ identityProvider: 'google', userId: 'g-alice', userName: 'alice@gmail.com' }],
          disableableCredentialTypes: [],
          requiredActions: [],
          realmRoles: ['default-roles-acme', 'offline_access', 'app-admin'],
          clientRoles: { account: ['manage-account', 'view-profile'], shop: ['buyer'] },
          notBefore: 0,
          groups: ['/staff/editors'],
        },
        {
          id: 'kc-bob',
          createdTimestamp: 1690000001000,
          username: 'bob',
          enabled: true,
          emailVerified: false,
          email: 'bob@example.com',
          credentials: [
            await keycloakArgon2Credential('bob-pw'),
            {
              id: 'wa-1',
              type: 'webauthn',
              userLabel: 'YubiKey',
              credentialData: JSON.stringify({ aaguid: '00000000-0000-0000-0000-000000000000', credentialId: 'Y3JlZA', counter: 3 }),
              secretData: '{}',
            },
          ],
          requiredActions: ['CONFIGURE_TOTP'],
          realmRoles: ['default-roles-acme', 'legacy-x'],
          groups: [],
        },
        { id: 'kc-carol', username: 'carol', enabled: false, email: 'carol@example.com', credentials: [keycloakPbkdf2Credential('c')] },
        { id: 'kc-svc', username: 'service-account-shop', enabled: true, serviceAccountClientLink: 'shop', credentials: [] },
      ]),
    );
    const before = Date.now();

    const result = await runCommand(migrateArgs(core, 'keycloak', file, '--mapping', mapping));

    expect(result.stderr).toContain('roles: 3 declared by the mapping (3 new to the core)');
    expect(result.code).toBe(0);
    const report = reportOf(file);
    expect(report.totals).toEqual({
      read: 4,
      imported: 2,
      alreadyImported: 0,
      failed: 0,
      invalid: 0,
      skipped: 2,
      completed: 0,
      stillQueued: 0,
      withCollisions: 0,
      withDataNotCarried: 1,
    });
    expect(report.carried).toEqual([
      { user: 'kc-alice', record: 1, items: ['roles: admin, buyer, editor'] },
      { user: 'kc-bob', record: 2, items: ['marked to re-enrol (mfaReEnrolment): webauthn, totp'] },
    ]);
    expect(report.notCarried).toEqual([
      {
        user: 'kc-bob',
        record: 2,
        fields: [
          'passkey Y3JlZA (credentials[1] webauthn): no public key at the source; left behind, marked to re-enrol',
          'requiredActions CONFIGURE_TOTP: the user was to set up TOTP; marked to enrol',
          'roles legacy-x: not in the mapping (unmapped: report)',
        ],
      },
    ]);
    expect(report.notImported.map((entry: { user: string; reason: string }) => [entry.user, entry.reason])).toEqual([
      ['kc-carol', 'disabled in the source (pass --include-disabled to import disabled users)'],
      ['kc-svc', 'service account of client shop: not a person'],
    ]);

    expect(await rolesOf(core, 'kc-alice')).toEqual(['admin', 'buyer', 'editor']);
    expect(await rolesOf(core, 'kc-bob')).toEqual([]);
    expect(await permissionsOf(core, 'admin')).toEqual(['users:read', 'users:write']);
    expect(await permissionsOf(core, 'editor')).toEqual(['posts:write']);
    expect(await metadataOf(core, 'kc-alice')).toEqual({
      username: 'alice',
      firstName: 'Alice',
      lastName: 'Liddell',
      appMetadata: { department: ['sales'] },
      userMetadata: { nickname: ['ally'] },
    });
    const bob = await metadataOf(core, 'kc-bob');
    expect({ ...bob, mfaReEnrolment: markOf(bob, before) }).toEqual({
      username: 'bob',
      mfaReEnrolment: { required: true, factors: ['webauthn', 'totp'], source: 'keycloak', markedAt: 'the run' },
    });
    expect(await signIn(core, 'alice@example.com', 'alice-pw')).toBe('OK');
    expect(await signIn(core, 'bob@example.com', 'bob-pw')).toBe('OK');
    expect(await userById(core, 'kc-alice')).toMatchObject({
      emails: ['alice@example.com'],
      thirdParty: [{ id: 'google', userId: 'g-alice' }],
    });
  });

  it('clerk: the Dashboard CSV joined with the API users; metadata by trust, role claims, phone second factor, marks', async () => {
    const mapping = temp.file(
      'clerk-mapping.json',
      JSON.stringify({
        roles: { owner: ['billing:manage'], member: [] },
        map: { admin: 'owner', 'org:member': 'member' },
        roleClaims: ['role'],
      }),
    );
    const csv = temp.file(
      'clerk-users.csv',
      [
        CLERK_CSV_HEADER,
        `user_2aaa,Ann,Lee,annl,ann@example.com,,ann@example.com|ann.lee@example.com,,,,,${bcryptHash('ann-pw')},bcrypt`,
        'user_2bbb,Ben,Ode,,ben@example.com,+14155550111,ben@example.com,,+14155550111,,,,',
      ].join('\n'),
    );
    const api = temp.file(
      'clerk-api.json',
      JSON.stringify([
        clerkApiUser('user_2aaa', 'ann@example.com', {
          // The role claim is in trusted metadata; the same key in unsafe metadata must not grant anything.
          public_metadata: { role: 'admin', plan: 'pro' },
          private_metadata: { stripeCustomer: 'cus_1' },
          unsafe_metadata: { theme: 'dark', role: 'member' },
          totp_enabled: true,
          two_factor_enabled: true,
          backup_code_enabled: true,
          external_accounts: [
            {
              id: 'eac_1',
              object: 'external_account',
              provider: 'oauth_google',
              provider_user_id: 'g-ann',
              email_address: 'ann@example.com',
            },
          ],
        }),
        clerkApiUser('user_2bbb', 'ben@example.com', {
          password_enabled: false,
          two_factor_enabled: true,
          phone_numbers: [{ id: 'idn_p', phone_number: '+14155550111', reserved_for_second_factor: true, default_second_factor: true }],
        }),
      ]),
    );
    const before = Date.now();

    const result = await runCommand(migrateArgs(core, 'clerk', csv, '--clerk-api', api, '--mapping', mapping));

    expect(result.code).toBe(0);
    const report = reportOf(csv);
    expect(report.totals).toMatchObject({ read: 2, imported: 2, withDataNotCarried: 1 });
    expect(report.carried).toEqual([
      { user: 'user_2aaa', record: 1, items: ['roles: owner', 'marked to re-enrol (mfaReEnrolment): totp'] },
      {
        user: 'user_2bbb',
        record: 2,
        items: ['second factor otp-phone: +14155550111', 'required second factors: otp-phone'],
      },
    ]);
    expect(report.notCarried).toEqual([
      {
        user: 'user_2aaa',
        record: 1,
        fields: [
          'verified_email_addresses: 1 other address(es): a user here signs in by one email',
          'totp_enabled: the CSV has no totp_secret for this user; marked to re-enrol',
          'backup codes: Clerk exports none; the user must generate new ones',
        ],
      },
    ]);
    expect(await rolesOf(core, 'user_2aaa')).toEqual(['owner']);
    expect(await rolesOf(core, 'user_2bbb')).toEqual([]);
    const ann = await metadataOf(core, 'user_2aaa');
    expect({ ...ann, mfaReEnrolment: markOf(ann, before) }).toEqual({
      firstName: 'Ann',
      lastName: 'Lee',
      username: 'annl',
      imageUrl: 'https://img.clerk.com/user_2aaa',
      appMetadata: { role: 'admin', plan: 'pro' },
      privateMetadata: { stripeCustomer: 'cus_1' },
      userMetadata: { theme: 'dark', role: 'member' },
      mfaReEnrolment: { required: true, factors: ['totp'], source: 'clerk', markedAt: 'the run' },
    });
    expect(await metadataOf(core, 'user_2bbb')).toEqual({
      firstName: 'Ben',
      lastName: 'Ode',
      imageUrl: 'https://img.clerk.com/user_2bbb',
      _supertokens: { requiredSecondaryFactors: ['otp-phone'] },
    });
    expect(await signIn(core, 'ann@example.com', 'ann-pw')).toBe('OK');
    expect(await userById(core, 'user_2aaa')).toMatchObject({ thirdParty: [{ id: 'google', userId: 'g-ann' }] });
    // Ben signs in by email code, and his second-factor phone is a linked login method the app asks for next.
    expect(await userById(core, 'user_2bbb')).toMatchObject({ emails: ['ben@example.com'], phoneNumbers: ['+14155550111'] });
  });

  it('supabase: auth.users with auth.identities and auth.mfa_factors; app and user metadata apart', async () => {
    const users = temp.file(
      'users.csv',
      pgCsv(SUPABASE_USER_COLUMNS, [
        {
          instance_id: '00000000-0000-0000-0000-000000000000',
          id: '6f1c0e9a-0000-4000-8000-000000000001',
          aud: 'authenticated',
          role: 'authenticated',
          email: 'uma@example.com',
          encrypted_password: bcryptHash('uma-pw'),
          email_confirmed_at: '2024-01-15 10:30:00.123456+00',
          raw_app_meta_data: { provider: 'email', providers: ['email', 'google'], role: 'editor', tier: 3 },
          raw_user_meta_data: { full_name: 'Uma Thurman', avatar_url: 'https://a/u.png' },
          is_super_admin: null,
          created_at: '2024-01-15 10:29:59.5+00',
          updated_at: '2024-02-01 00:00:00+00',
          phone: null,
          is_sso_user: 'f',
          is_anonymous: 'f',
        },
        {
          instance_id: '00000000-0000-0000-0000-000000000000',
          id: '6f1c0e9a-0000-4000-8000-000000000002',
          aud: 'authenticated',
          role: 'authenticated',
          email: null,
          encrypted_password: '',
          raw_app_meta_data: { provider: 'phone', providers: ['phone'] },
          raw_user_meta_data: {},
          created_at: '2024-01-16 08:00:00+00',
          phone: '14155550122',
          phone_confirmed_at: '2024-01-16 08:00:05+00',
          is_sso_user: 'f',
          is_anonymous: 'f',
        },
        {
          id: '6f1c0e9a-0000-4000-8000-000000000003',
          email: 'gone@example.com',
          encrypted_password: bcryptHash('x'),
          created_at: '2024-01-17 08:00:00+00',
          deleted_at: '2024-03-01 00:00:00+00',
          is_anonymous: 'f',
        },
      ]),
    );
    const identities = temp.file(
      'identities.csv',
      pgCsv(SUPABASE_IDENTITY_COLUMNS, [
        {
          provider_id: '6f1c0e9a-0000-4000-8000-000000000001',
          user_id: '6f1c0e9a-0000-4000-8000-000000000001',
          identity_data: { sub: '6f1c0e9a-0000-4000-8000-000000000001', email: 'uma@example.com', email_verified: true },
          provider: 'email',
          email: 'uma@example.com',
          id: 'aaaaaaaa-0000-4000-8000-000000000001',
        },
        {
          provider_id: '10876543210',
          user_id: '6f1c0e9a-0000-4000-8000-000000000001',
          identity_data: { sub: '10876543210', email: 'uma@gmail.com', name: 'Uma', iss: 'https://accounts.google.com' },
          provider: 'google',
          email: 'uma@gmail.com',
          id: 'aaaaaaaa-0000-4000-8000-000000000002',
        },
      ]),
    );
    const factors = temp.file(
      'mfa_factors.csv',
      pgCsv(SUPABASE_FACTOR_COLUMNS, [
        {
          id: 'f0000000-0000-4000-8000-000000000001',
          user_id: '6f1c0e9a-0000-4000-8000-000000000001',
          friendly_name: 'Pixel',
          factor_type: 'phone',
          status: 'verified',
          created_at: '2024-01-20 00:00:00+00',
          updated_at: '2024-01-20 00:00:00+00',
          phone: '14155550133',
        },
        {
          id: 'f0000000-0000-4000-8000-000000000002',
          user_id: '6f1c0e9a-0000-4000-8000-000000000001',
          friendly_name: 'Laptop key',
          factor_type: 'webauthn',
          status: 'verified',
          created_at: '2024-01-21 00:00:00+00',
          updated_at: '2024-01-21 00:00:00+00',
          web_authn_credential: { id: 'cred' },
        },
        {
          id: 'f0000000-0000-4000-8000-000000000003',
          user_id: '6f1c0e9a-0000-4000-8000-000000000002',
          factor_type: 'totp',
          status: 'unverified',
          created_at: '2024-01-22 00:00:00+00',
          updated_at: '2024-01-22 00:00:00+00',
          secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
        },
      ]),
    );
    const mapping = temp.file('supabase-mapping.yaml', 'roles:\n  editor: [posts:write]\nroleClaims: [role]\n');
    const before = Date.now();

    const result = await runCommand(
      migrateArgs(core, 'supabase', users, '--identities', identities, '--mfa-factors', factors, '--mapping', mapping),
    );

    expect(result.code).toBe(0);
    const report = reportOf(users);
    expect(report.totals).toMatchObject({ read: 3, imported: 2, skipped: 1, withDataNotCarried: 2 });
    expect(report.carried).toEqual([
      {
        user: '6f1c0e9a-0000-4000-8000-000000000001',
        record: 1,
        items: [
          'roles: editor',
          'second factor otp-phone: +14155550133',
          'required second factors: otp-phone',
          'marked to re-enrol (mfaReEnrolment): webauthn',
        ],
      },
    ]);
    expect(report.notCarried).toEqual([
      {
        user: '6f1c0e9a-0000-4000-8000-000000000001',
        record: 1,
        fields: [
          'passkey cred (mfa_factors f0000000-0000-4000-8000-000000000002 webauthn): no public key at the source; left behind, marked to re-enrol',
        ],
      },
      {
        user: '6f1c0e9a-0000-4000-8000-000000000002',
        record: 2,
        fields: ['mfa_factors f0000000-0000-4000-8000-000000000003 totp: never verified, so not carried'],
      },
    ]);
    const uma = '6f1c0e9a-0000-4000-8000-000000000001';
    expect(await rolesOf(core, uma)).toEqual(['editor']);
    const metadata = await metadataOf(core, uma);
    expect({ ...metadata, mfaReEnrolment: markOf(metadata, before) }).toEqual({
      appMetadata: { role: 'editor', tier: 3 },
      userMetadata: { full_name: 'Uma Thurman', avatar_url: 'https://a/u.png' },
      _supertokens: { requiredSecondaryFactors: ['otp-phone'] },
      mfaReEnrolment: { required: true, factors: ['webauthn'], source: 'supabase', markedAt: 'the run' },
    });
    expect(await userById(core, uma)).toMatchObject({
      timeJoined: Date.parse('2024-01-15T10:29:59.500Z'),
      emails: ['uma@example.com', 'uma@gmail.com'],
      phoneNumbers: ['+14155550133'],
      thirdParty: [{ id: 'google', userId: '10876543210' }],
    });
    expect(await signIn(core, 'uma@example.com', 'uma-pw')).toBe('OK');
    expect(await userById(core, '6f1c0e9a-0000-4000-8000-000000000002')).toMatchObject({ phoneNumbers: ['+14155550122'] });
  });

  it('firebase: custom claims as trusted metadata and roles; a TOTP factor (never exported) marks the user', async () => {
    const ann = await firebasePassword('fb-pw');
    const hashConfig = temp.file('hash-config.txt', hashConfigBlock);
    const file = temp.file(
      'firebase-users.json',
      firebaseJsonExport([
        {
          localId: 'fb-claims',
          email: 'claims@example.com',
          emailVerified: true,
          passwordHash: ann.passwordHash,
          salt: ann.salt,
          createdAt: '1600000000000',
          customAttributes: '{"admin":true,"roles":["support"],"plan":"team"}',
          providerUserInfo: [{ providerId: 'password', rawId: 'claims@example.com', email: 'claims@example.com' }],
          mfaInfo: [{ mfaEnrollmentId: 'totp-1', displayName: 'Authenticator', totpInfo: {}, enrolledAt: '2024-01-01T00:00:00Z' }],
        },
      ]),
    );
    const mapping = temp.file('firebase-mapping.yaml', 'roles:\n  admin: [all]\n  support: [tickets]\nroleClaims: [admin, roles]\n');
    const before = Date.now();

    const result = await runCommand(migrateArgs(core, 'firebase', file, '--hash-config', hashConfig, '--mapping', mapping));

    expect(result.code).toBe(0);
    const report = reportOf(file);
    expect(report.carried).toEqual([
      { user: 'fb-claims', record: 1, items: ['roles: admin, support', 'marked to re-enrol (mfaReEnrolment): totp'] },
    ]);
    expect(report.notCarried).toEqual([
      { user: 'fb-claims', record: 1, fields: ['mfaInfo[0] totp: the platform never exports TOTP secrets; marked to re-enrol'] },
    ]);
    expect(await rolesOf(core, 'fb-claims')).toEqual(['admin', 'support']);
    const metadata = await metadataOf(core, 'fb-claims');
    expect({ ...metadata, mfaReEnrolment: markOf(metadata, before) }).toEqual({
      appMetadata: { admin: true, roles: ['support'], plan: 'team' },
      mfaReEnrolment: { required: true, factors: ['totp'], source: 'firebase', markedAt: 'the run' },
    });
    expect(await signIn(core, 'claims@example.com', 'fb-pw')).toBe('OK');
  });

  it('cognito: groups, custom attributes, SMS kept as a phone factor, TOTP marked', async () => {
    const file = temp.file(
      'cognito-users.json',
      JSON.stringify({
        Users: [
          {
            Username: 'dora_1',
            Attributes: [
              { Name: 'sub', Value: 'sub-dora' },
              { Name: 'email', Value: 'dora@example.com' },
              { Name: 'email_verified', Value: 'true' },
              { Name: 'phone_number', Value: '+14155550144' },
              { Name: 'custom:tenant', Value: 'acme' },
              { Name: 'custom:nickname', Value: 'dee' },
            ],
            UserCreateDate: '2023-01-15T10:20:30.123000+00:00',
            Enabled: true,
            UserStatus: 'CONFIRMED',
            // Added from admin-list-groups-for-user and admin-get-user.
            Groups: [{ GroupName: 'admins', UserPoolId: 'us-east-1_x' }, { GroupName: 'beta-testers' }],
            UserMFASettingList: ['SOFTWARE_TOKEN_MFA', 'SMS_MFA'],
            PreferredMfaSetting: 'SOFTWARE_TOKEN_MFA',
          },
        ],
      }),
    );
    const mapping = temp.file(
      'cognito-mapping.yaml',
      'roles:\n  admin: [all]\nmap:\n  admins: admin\nuserEditableClaims: ["custom:nickname"]\n',
    );
    const before = Date.now();

    const result = await runCommand(migrateArgs(core, 'cognito', file, '--lazy-source', 'cognito', '--mapping', mapping));

    expect(result.code).toBe(0);
    const report = reportOf(file);
    expect(report.carried).toEqual([
      {
        user: 'sub-dora',
        record: 1,
        items: [
          'roles: admin',
          'second factor otp-phone: +14155550144',
          'required second factors: otp-phone',
          'marked to re-enrol (mfaReEnrolment): totp',
        ],
      },
    ]);
    expect(report.notCarried).toEqual([
      {
        user: 'sub-dora',
        record: 1,
        fields: [
          'SOFTWARE_TOKEN_MFA: Cognito never exports TOTP secrets; marked to re-enrol',
          'roles beta-testers: not in the mapping (unmapped: report)',
        ],
      },
    ]);
    expect(await rolesOf(core, 'sub-dora')).toEqual(['admin']);
    const metadata = await metadataOf(core, 'sub-dora');
    expect({ ...metadata, mfaReEnrolment: markOf(metadata, before) }).toEqual({
      cognitoUsername: 'dora_1',
      appMetadata: { tenant: 'acme' },
      userMetadata: { nickname: 'dee' },
      _supertokens: { requiredSecondaryFactors: ['otp-phone'] },
      mfaReEnrolment: { required: true, factors: ['totp'], source: 'cognito', markedAt: 'the run' },
    });
  });

  it('okta: groups with Everyone left out, profile claims, an SMS factor carried and an Okta Verify factor marked', async () => {
    const file = temp.file(
      'okta-users.json',
      JSON.stringify([
        {
          id: '00u1erin',
          status: 'ACTIVE',
          created: '2022-05-01T10:00:00.000Z',
          profile: {
            login: 'erin@example.com',
            email: 'erin@example.com',
            firstName: 'Erin',
            lastName: 'Ng',
            department: 'R&D',
            costCenter: '42',
          },
          credentials: { password: {}, provider: { type: 'OKTA', name: 'OKTA' } },
          // Added from GET /api/v1/users/{id}/groups and /factors.
          groups: [
            { id: '00g1', type: 'BUILT_IN', profile: { name: 'Everyone' } },
            { id: '00g2', type: 'OKTA_GROUP', profile: { name: 'Engineering' } },
          ],
          factors: [
            { id: 'mbl1', factorType: 'sms', provider: 'OKTA', status: 'ACTIVE', profile: { phoneNumber: '+14155550155' } },
            { id: 'opf1', factorType: 'push', provider: 'OKTA', status: 'ACTIVE' },
            { id: 'ost1', factorType: 'token:software:totp', provider: 'GOOGLE', status: 'PENDING_ACTIVATION' },
          ],
        },
      ]),
    );
    const mapping = temp.file('okta-mapping.yaml', 'roles:\n  engineer: [deploy]\nmap:\n  Engineering: engineer\n');
    const before = Date.now();

    const result = await runCommand(migrateArgs(core, 'okta', file, '--lazy-source', 'okta', '--mapping', mapping));

    expect(result.code).toBe(0);
    const report = reportOf(file);
    expect(report.carried).toEqual([
      {
        user: '00u1erin',
        record: 1,
        items: [
          'roles: engineer',
          'second factor otp-phone: +14155550155',
          'required second factors: otp-phone',
          'marked to re-enrol (mfaReEnrolment): totp',
        ],
      },
    ]);
    expect(report.notCarried).toEqual([
      { user: '00u1erin', record: 1, fields: ['factor push: Okta never exports its secret; marked to re-enrol (totp)'] },
    ]);
    expect(await rolesOf(core, '00u1erin')).toEqual(['engineer']);
    const metadata = await metadataOf(core, '00u1erin');
    expect({ ...metadata, mfaReEnrolment: markOf(metadata, before) }).toEqual({
      firstName: 'Erin',
      lastName: 'Ng',
      appMetadata: { department: 'R&D', costCenter: '42' },
      _supertokens: { requiredSecondaryFactors: ['otp-phone'] },
      mfaReEnrolment: { required: true, factors: ['totp'], source: 'okta', markedAt: 'the run' },
    });
  });

  it('auth0: roles from the Management API and from app_metadata (never user_metadata); unmapped names kept as roles', async () => {
    const file = temp.file(
      'auth0-users.ndjson',
      `${[
        {
          user_id: 'auth0|r1',
          email: 'rita@example.com',
          created_at: '2021-03-04T05:06:07.000Z',
          identities: [{ provider: 'auth0', user_id: 'r1', connection: 'Username-Password-Authentication', isSocial: false }],
          app_metadata: { roles: ['billing'] },
          user_metadata: { roles: ['superuser'], color: 'blue' },
          roles: [{ id: 'rol_1', name: 'Support Agent', description: 'Answers tickets' }],
          multifactor: ['guardian'],
        },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n')}\n`,
    );
    const hashes = temp.file(
      'auth0-hashes.ndjson',
      `${JSON.stringify({ _id: { $oid: 'r1' }, email: 'rita@example.com', passwordHash: bcryptHash('rita-pw'), connection: 'Username-Password-Authentication' })}\n`,
    );
    const mapping = temp.file(
      'auth0-mapping.yaml',
      'roles:\n  support: [tickets:answer]\nmap:\n  Support Agent: support\nroleClaims: [roles]\nunmapped: keep\n',
    );

    const result = await runCommand(migrateArgs(core, 'auth0', file, '--password-hashes', hashes, '--mapping', mapping));

    expect(result.code).toBe(0);
    expect(reportOf(file).carried).toEqual([
      { user: 'auth0|r1', record: 1, items: ['roles: support, billing', 'marked to re-enrol (mfaReEnrolment): totp'] },
    ]);
    expect(await rolesOf(core, 'auth0|r1')).toEqual(['billing', 'support']);
    // A role kept under its source name is declared without permissions.
    expect(await permissionsOf(core, 'billing')).toEqual([]);
    expect(await rolesOf(core, 'auth0|r1')).not.toContain('superuser');
    expect(await signIn(core, 'rita@example.com', 'rita-pw')).toBe('OK');
  });

  it('without a mapping, roles and groups are reported and nothing is declared', async () => {
    const file = temp.file(
      'nomap-realm.json',
      keycloakRealm([
        {
          id: 'kc-nomap',
          username: 'nomap',
          enabled: true,
          email: 'nomap@example.com',
          credentials: [keycloakPbkdf2Credential('nomap-pw')],
          realmRoles: ['default-roles-acme', 'app-admin'],
          groups: ['/staff'],
        },
      ]),
    );
    const result = await runCommand(migrateArgs(core, 'keycloak', file));
    expect(result.code).toBe(0);
    expect(reportOf(file).notCarried).toEqual([
      { user: 'kc-nomap', record: 1, fields: ['roles app-admin, /staff: no --mapping file says which core role they become'] },
    ]);
    expect(result.stdout).toContain('Data not carried, and why:\n  kc-nomap (record 1): roles app-admin, /staff: no --mapping file');
    expect(await rolesOf(core, 'kc-nomap')).toEqual([]);
  });

  it('a dry run declares no role and sends no assignment, yet lists the roles a real run would carry', async () => {
    const file = temp.file(
      'dry-realm.json',
      keycloakRealm([
        {
          id: 'kc-dry',
          username: 'dry',
          enabled: true,
          email: 'dry@example.com',
          credentials: [keycloakPbkdf2Credential('dry-pw', 1000)],
          realmRoles: ['auditor'],
        },
      ]),
    );
    const mapping = temp.file('dry-mapping.yaml', 'roles:\n  auditor: [logs:read]\n');
    const report = temp.file('dry-report.json', '');
    const result = await runCommand(migrateArgs(core, 'keycloak', file, '--mapping', mapping, '--dry-run', '--report', report));
    expect(result.code).toBe(0);
    const written = JSON.parse(fs.readFileSync(report, 'utf8'));
    expect([written.totals.wouldImport, written.carried]).toEqual([1, [{ user: 'kc-dry', record: 1, items: ['roles: auditor'] }]]);
    const roles = await call(core.t.app, 'GET', '/recipe/roles', { headers });
    expect(roles.json?.roles).not.toContain('auditor');
    expect(await userById(core, 'kc-dry')).toBeUndefined();
  });

  it('refuses a mapping that names an undeclared role before anything is sent', async () => {
    const file = temp.file('bad-realm.json', keycloakRealm([]));
    const mapping = temp.file('bad-mapping.yaml', 'roles:\n  admin: []\nmap:\n  app-admin: [admin, root]\n');
    const result = await runCommand(migrateArgs(core, 'keycloak', file, '--mapping', mapping));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${mapping}: map.app-admin names root, which roles does not declare`);
    expect(fs.existsSync(`${file}.migrate-report.json`)).toBe(false);
  });
});
