import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helper.js';
import { SoftAuthenticator } from '../recipes/webauthn/authenticator.js';
import {
  keycloakPbkdf2Credential,
  keycloakRealm,
  pgCsv,
  SUPABASE_FACTOR_COLUMNS,
  SUPABASE_USER_COLUMNS,
  SUPABASE_WEBAUTHN_COLUMNS,
} from './carry/exports.js';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, signIn, startCore, type RunningCore } from './harness.js';

// Passkeys carried from each source that gives the public keys out: a key pair made here, its public key written
// into that provider's own export layout, the real command run against a real core, and then a sign-in with the same
// private key (options + assertion through the core's WebAuthn routes, as the SDK drives them) reaches a session
// under the user's old id.

const headers = { 'api-key': apiKey, 'cdi-version': '5.4' };
const rpId = 'example.com';
const origin = 'https://example.com';

async function passkeySignIn(core: RunningCore, authenticator: SoftAuthenticator) {
  const options = await call(core.t.app, 'POST', '/public/recipe/webauthn/options/signin', {
    body: { relyingPartyId: rpId, relyingPartyName: 'Example', origin },
    headers,
  });
  const credential = authenticator.assert(options.json.challenge, origin, rpId);
  const reply = await call(core.t.app, 'POST', '/public/recipe/webauthn/signin', {
    body: { webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId, credential },
    headers,
  });
  return reply.json;
}

/** Signs in with the passkey and opens a session for the user it names, as the SDK's sign-in API does. */
async function sessionByPasskey(core: RunningCore, authenticator: SoftAuthenticator) {
  const signedIn = await passkeySignIn(core, authenticator);
  expect(signedIn.status).toBe('OK');
  const session = await call(core.t.app, 'POST', '/public/recipe/session', {
    body: { userId: signedIn.user.id, userDataInJWT: {}, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false },
    headers,
  });
  expect(session.json.status).toBe('OK');
  return { user: signedIn.user, sessionUser: session.json.session.userId as string };
}

async function requiredFactorsOf(core: RunningCore, userId: string) {
  const reply = await call(core.t.app, 'GET', '/recipe/user/metadata', { query: { userId }, headers });
  return reply.json?.metadata?._supertokens?.requiredSecondaryFactors;
}

const reportOf = (file: string) => JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
const b64 = (bytes: Buffer) => bytes.toString('base64');
const b64url = (bytes: Buffer) => bytes.toString('base64url');

describe('migrate: passkeys from each source sign in under the old user id', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore({ webauthn_rp_ids: rpId });
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  it('keycloak: a passwordless passkey user and a password user with a passkey second factor', async () => {
    const only = new SoftAuthenticator({ counterStep: 1 });
    const second = new SoftAuthenticator({ alg: 'RS256', counterStep: 1 });
    const onlyId = crypto.randomUUID();
    const secondId = crypto.randomUUID();
    // Keycloak's user handle: the UTF-8 bytes of the user's id.
    only.userHandle = b64url(Buffer.from(onlyId));
    second.userHandle = b64url(Buffer.from(secondId));
    const credentialData = (authenticator: SoftAuthenticator) =>
      JSON.stringify({
        aaguid: '00000000-0000-0000-0000-000000000000',
        credentialId: b64(authenticator.credentialId),
        credentialPublicKey: b64url(authenticator.coseKey()),
        counter: 3,
        attestationStatementFormat: 'none',
        transports: ['internal'],
      });
    const file = temp.file(
      'realm-passkeys.json',
      keycloakRealm([
        {
          id: onlyId,
          username: 'pia',
          email: 'pia@example.com',
          emailVerified: true,
          enabled: true,
          createdTimestamp: 1700000000000,
          credentials: [
            { type: 'webauthn-passwordless', userLabel: 'Phone', createdDate: 1700000001000, credentialData: credentialData(only) },
          ],
        },
        {
          id: secondId,
          username: 'sam',
          email: 'sam@example.com',
          emailVerified: true,
          enabled: true,
          createdTimestamp: 1700000000000,
          credentials: [
            keycloakPbkdf2Credential('sam-password'),
            { type: 'webauthn', userLabel: 'Key', createdDate: 1700000001000, credentialData: credentialData(second) },
          ],
        },
      ]),
    );
    const result = await runCommand(migrateArgs(core, 'keycloak', file, '--rp-id', rpId));
    expect(result.code, result.stdout).toBe(0);

    // The passkey-only user: counter 3 stored, the authenticator's next is 1 → start it above.
    only.counter = 3;
    second.counter = 3;
    const first = await sessionByPasskey(core, only);
    expect(first.user.id).toBe(onlyId);
    expect(first.sessionUser).toBe(onlyId);
    expect(first.user.loginMethods.map((method: { recipeId: string }) => method.recipeId)).toEqual(['webauthn']);

    // The second-factor user keeps the password, the passkey, and the requirement to present it after the password.
    expect(await signIn(core, 'sam@example.com', 'sam-password')).toBe('OK');
    const two = await sessionByPasskey(core, second);
    expect(two.user.id).toBe(secondId);
    expect(await requiredFactorsOf(core, secondId)).toEqual(['webauthn']);

    const report = reportOf(file);
    expect(report.carried).toEqual([
      { user: onlyId, record: 1, items: [`passkey ${b64url(only.credentialId).slice(0, 12)}… (rp example.com, sign-in)`] },
      {
        user: secondId,
        record: 2,
        items: [
          `passkey ${b64url(second.credentialId).slice(0, 12)}… (rp example.com, second factor)`,
          'required second factors: webauthn',
        ],
      },
    ]);
    expect(report.passkeys).toEqual({
      coreRpIds: ['example.com'],
      rpIds: [{ rpId: 'example.com', found: 2, carried: 2, configuredAtCore: true }],
    });
  });

  it('kratos: a passkey credential and a webauthn passwordless one, with the identity user handle', async () => {
    const passkey = new SoftAuthenticator();
    const identityId = crypto.randomUUID();
    const handle = crypto.randomBytes(64);
    passkey.userHandle = b64url(handle);
    const other = new SoftAuthenticator();
    other.userHandle = b64url(handle);
    const kratosCredential = (authenticator: SoftAuthenticator, passwordless: boolean) => ({
      id: b64(authenticator.credentialId),
      public_key: b64(authenticator.coseKey()),
      attestation_type: 'none',
      authenticator: { aaguid: b64(Buffer.alloc(16)), sign_count: 0, clone_warning: false },
      display_name: 'My key',
      added_at: '2024-01-02T03:04:05Z',
      is_passwordless: passwordless,
    });
    const identities = [
      {
        id: identityId,
        schema_id: 'default',
        state: 'active',
        traits: { email: 'kim@example.com' },
        verifiable_addresses: [{ value: 'kim@example.com', verified: true, via: 'email', status: 'completed' }],
        created_at: '2024-01-02T03:04:05.123Z',
        credentials: {
          passkey: {
            type: 'passkey',
            identifiers: [b64(handle)],
            config: { user_handle: b64(handle), credentials: [kratosCredential(passkey, true)] },
            version: 0,
          },
          webauthn: {
            type: 'webauthn',
            identifiers: [identityId],
            config: { user_handle: b64(handle), credentials: [kratosCredential(other, true)] },
            version: 1,
          },
        },
      },
    ];
    const file = temp.file('kratos-identities.json', JSON.stringify(identities));
    const result = await runCommand(migrateArgs(core, 'kratos', file, '--rp-id', rpId));
    expect(result.code, result.stdout).toBe(0);
    const session = await sessionByPasskey(core, passkey);
    expect(session.user.id).toBe(identityId);
    expect(session.sessionUser).toBe(identityId);
    expect((await sessionByPasskey(core, other)).user.id).toBe(identityId);
    expect(session.user.emails).toEqual(['kim@example.com']);
  });

  it('auth0: passkeys from the authentication-methods API; one on the tenant domain is left behind with the reason', async () => {
    const passkey = new SoftAuthenticator();
    const handle = crypto.randomBytes(64);
    passkey.userHandle = b64url(handle);
    const stranded = new SoftAuthenticator();
    const userId = 'auth0|6500aa11bb22cc33dd44ee55';
    const users = temp.file(
      'auth0-users.json',
      `${JSON.stringify({
        user_id: userId,
        email: 'ana@example.com',
        email_verified: true,
        created_at: '2024-01-02T03:04:05.678Z',
        identities: [{ provider: 'auth0', user_id: '6500aa11bb22cc33dd44ee55', connection: 'Username-Password-Authentication' }],
      })}\n`,
    );
    const methods = temp.file(
      'auth0-methods.json',
      JSON.stringify({
        [userId]: [
          {
            id: 'passkey|dev_1',
            type: 'passkey',
            confirmed: true,
            key_id: b64url(passkey.credentialId),
            public_key: b64(passkey.coseKey()),
            user_handle: b64url(handle),
            aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4',
            transports: ['hybrid', 'internal'],
            credential_device_type: 'multi_device',
            credential_backed_up: true,
            relying_party_identifier: rpId,
            created_at: '2024-02-01T00:00:00.000Z',
            usage: ['primary'],
          },
          {
            id: 'passkey|dev_2',
            type: 'passkey',
            key_id: b64url(stranded.credentialId),
            public_key: b64(stranded.coseKey()),
            user_handle: b64url(handle),
            relying_party_identifier: 'acme.us.auth0.com',
            created_at: '2024-02-01T00:00:00.000Z',
          },
          { id: 'email|dev_3', type: 'email', email: 'ana@example.com' },
        ],
      }),
    );
    const result = await runCommand(migrateArgs(core, 'auth0', users, '--authentication-methods', methods));
    expect(result.code, result.stdout).toBe(0);
    const session = await sessionByPasskey(core, passkey);
    expect(session.user.id).toBe(userId);
    expect(session.sessionUser).toBe(userId);
    expect((await passkeySignIn(core, stranded)).status).toBe('CREDENTIAL_NOT_FOUND_ERROR');
    expect(result.stdout).toContain("acme.us.auth0.com: the old provider's own domain; those passkeys cannot move");
    expect(result.stdout).toContain('The app must keep serving example.com:');
    const report = reportOf(users);
    expect(report.notCarried).toEqual([
      {
        user: userId,
        record: 1,
        fields: [
          `passkey ${b64url(stranded.credentialId).slice(0, 12)}… (authentication method passkey|dev_2): made for the Auth0 tenant domain acme.us.auth0.com, which no other server can serve; left behind, marked to re-enrol`,
        ],
      },
    ]);
    expect(report.passkeys.rpIds).toEqual([
      { rpId: 'example.com', found: 1, carried: 1, configuredAtCore: true },
      { rpId: 'acme.us.auth0.com', found: 1, carried: 0, configuredAtCore: false },
    ]);
  });

  it('supabase: a passkey from auth.webauthn_credentials (bytea as \\x hex) and a WebAuthn MFA factor', async () => {
    const passkey = new SoftAuthenticator();
    const factor = new SoftAuthenticator({ counterStep: 1 });
    const onlyId = crypto.randomUUID();
    const mfaId = crypto.randomUUID();
    passkey.userHandle = b64url(Buffer.from(onlyId));
    factor.userHandle = b64url(Buffer.from(mfaId));
    const user = (id: string, email: string, password: string) =>
      Object.fromEntries(
        SUPABASE_USER_COLUMNS.map((column) => [
          column,
          {
            id,
            email,
            encrypted_password: password,
            email_confirmed_at: '2024-01-02 03:04:05.123456+00',
            created_at: '2024-01-02 03:04:05.123456+00',
            raw_app_meta_data: { provider: 'email', providers: ['email'] },
            is_anonymous: 'f',
          }[column] ?? '',
        ]),
      );
    const users = temp.file(
      'supabase-users.csv',
      pgCsv(SUPABASE_USER_COLUMNS, [user(onlyId, 'lee@example.com', ''), user(mfaId, 'max@example.com', bcryptHash('max-password'))]),
    );
    const passkeys = temp.file(
      'supabase-webauthn.csv',
      pgCsv(SUPABASE_WEBAUTHN_COLUMNS, [
        {
          id: crypto.randomUUID(),
          user_id: onlyId,
          credential_id: `\\x${passkey.credentialId.toString('hex')}`,
          public_key: `\\x${passkey.coseKey().toString('hex')}`,
          attestation_type: 'none',
          aaguid: '',
          sign_count: '0',
          transports: '["internal"]',
          backup_eligible: 't',
          backed_up: 't',
          friendly_name: 'Mac',
          created_at: '2024-03-01 00:00:00+00',
          updated_at: '2024-03-01 00:00:00+00',
          last_used_at: '',
        },
      ]),
    );
    const factors = temp.file(
      'supabase-factors.csv',
      pgCsv(SUPABASE_FACTOR_COLUMNS, [
        Object.fromEntries(
          SUPABASE_FACTOR_COLUMNS.map((column) => [
            column,
            {
              id: crypto.randomUUID(),
              user_id: mfaId,
              friendly_name: 'YubiKey',
              factor_type: 'webauthn',
              status: 'verified',
              created_at: '2024-03-01 00:00:00+00',
              updated_at: '2024-03-01 00:00:00+00',
              web_authn_credential: {
                id: b64(factor.credentialId),
                publicKey: b64(factor.coseKey()),
                attestationType: 'none',
                transport: ['usb'],
                flags: { userPresent: true, userVerified: true, backupEligible: false, backupState: false },
                authenticator: { AAGUID: b64(Buffer.alloc(16)), signCount: 5, cloneWarning: false, attachment: 'cross-platform' },
              },
            }[column] ?? '',
          ]),
        ),
      ]),
    );
    const result = await runCommand(
      migrateArgs(core, 'supabase', users, '--mfa-factors', factors, '--webauthn-credentials', passkeys, '--rp-id', rpId),
    );
    expect(result.code, result.stdout).toBe(0);
    const only = await sessionByPasskey(core, passkey);
    expect(only.user.id).toBe(onlyId);
    expect(only.sessionUser).toBe(onlyId);
    expect(await signIn(core, 'max@example.com', 'max-password')).toBe('OK');
    factor.counter = 5;
    expect((await sessionByPasskey(core, factor)).user.id).toBe(mfaId);
    expect(await requiredFactorsOf(core, mfaId)).toEqual(['webauthn']);
  });

  it('hanko: admin API users with base64url ids and keys, the user handle the UUID bytes', async () => {
    const passkey = new SoftAuthenticator();
    const userId = crypto.randomUUID();
    passkey.userHandle = b64url(Buffer.from(userId.replace(/-/g, ''), 'hex'));
    const users = [
      {
        id: userId,
        emails: [{ id: crypto.randomUUID(), address: 'hal@example.com', is_verified: true, is_primary: true }],
        webauthn_credentials: [
          {
            id: b64url(passkey.credentialId),
            name: 'iPhone',
            public_key: b64url(passkey.coseKey()),
            attestation_type: 'none',
            aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
            created_at: '2024-04-01T10:00:00Z',
            transports: ['internal', 'hybrid'],
            backup_eligible: true,
            backup_state: true,
            mfa_only: false,
          },
        ],
        created_at: '2024-04-01T09:00:00Z',
        updated_at: '2024-04-01T10:00:00Z',
      },
    ];
    const file = temp.file('hanko-users.json', JSON.stringify(users));
    const result = await runCommand(migrateArgs(core, 'hanko', file, '--rp-id', rpId));
    expect(result.code, result.stdout).toBe(0);
    const session = await sessionByPasskey(core, passkey);
    expect(session.user.id).toBe(userId);
    expect(session.sessionUser).toBe(userId);
    expect(session.user.loginMethods.map((method: { recipeId: string }) => method.recipeId).sort()).toEqual(['passwordless', 'webauthn']);

    // A second run finds the user, passkey login method and all, by its old id and its webauthn email: nothing sent.
    const again = await runCommand(migrateArgs(core, 'hanko', file, '--rp-id', rpId, '--restart'));
    expect(again.code, again.stdout).toBe(0);
    expect(reportOf(file).totals).toMatchObject({ read: 1, imported: 0, alreadyImported: 1, failed: 0 });
  });

  it('a user an earlier run imported without passkeys is completed with them by a run that has them', async () => {
    const passkey = new SoftAuthenticator();
    const id = crypto.randomUUID();
    passkey.userHandle = b64url(Buffer.from(id));
    const user = (credentials: object[]) => ({
      id,
      username: 'cy',
      email: 'cy@example.com',
      emailVerified: true,
      enabled: true,
      createdTimestamp: 1700000000000,
      credentials: [keycloakPbkdf2Credential('cy-password'), ...credentials],
    });
    const before = temp.file('realm-before.json', keycloakRealm([user([])]));
    expect((await runCommand(migrateArgs(core, 'keycloak', before, '--rp-id', rpId))).code).toBe(0);
    const credentialData = JSON.stringify({
      credentialId: b64(passkey.credentialId),
      credentialPublicKey: b64url(passkey.coseKey()),
      counter: 0,
    });
    const after = temp.file('realm-after.json', keycloakRealm([user([{ type: 'webauthn-passwordless', credentialData }])]));
    const result = await runCommand(migrateArgs(core, 'keycloak', after, '--rp-id', rpId));
    expect(result.code, result.stdout).toBe(0);
    expect(reportOf(after).completed).toMatchObject([{ user: id, added: ['webauthn login method'] }]);
    expect((await sessionByPasskey(core, passkey)).user.id).toBe(id);
    expect(await signIn(core, 'cy@example.com', 'cy-password')).toBe('OK');
  });

  it('a run with passkeys for an RP id the core does not list is refused, dry run too; --leave-unconfigured-passkeys leaves them behind', async () => {
    const passkey = new SoftAuthenticator();
    const userId = crypto.randomUUID();
    const users = [
      {
        id: userId,
        emails: [{ address: 'ida@example.com', is_verified: true, is_primary: true }],
        webauthn_credentials: [{ id: b64url(passkey.credentialId), public_key: b64url(passkey.coseKey()), mfa_only: false }],
        created_at: '2024-04-01T09:00:00Z',
      },
    ];
    const file = temp.file('hanko-other-rp.json', JSON.stringify(users));
    const refusal =
      'the export has passkeys for relying-party ids the core is not configured for: login.other.org (1 passkey); ' +
      "the core's webauthn_rp_ids lists example.com. A passkey signs in only under the RP ID it was made for: the app " +
      'must keep serving login.other.org';
    for (const extra of [['--dry-run'], []]) {
      const refused = await runCommand(migrateArgs(core, 'hanko', file, '--rp-id', 'login.other.org', ...extra));
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(refusal);
      expect(refused.stderr).toContain('--leave-unconfigured-passkeys');
      expect(refused.stderr).toContain('Nothing was sent.');
      expect(fs.existsSync(`${file}.migrate-report.json`)).toBe(false);
      expect((await call(core.t.app, 'GET', '/user/id', { query: { userId }, headers })).json.status).toBe('UNKNOWN_USER_ID_ERROR');
    }

    const leave = ['--rp-id', 'login.other.org', '--leave-unconfigured-passkeys'];
    const dry = await runCommand(migrateArgs(core, 'hanko', file, ...leave, '--dry-run'));
    expect(dry.code, dry.stdout).toBe(0);
    expect(dry.stdout).toContain("login.other.org: 1 found, 0 would be carried (NOT in the core's webauthn_rp_ids)");
    expect(dry.stdout).toContain('The app must keep serving login.other.org');
    const run = await runCommand(migrateArgs(core, 'hanko', file, ...leave));
    expect(run.code, run.stdout).toBe(0);
    const report = reportOf(file);
    expect(report.notCarried[0].fields).toEqual([
      `passkey ${b64url(passkey.credentialId).slice(0, 12)}… (webauthn_credentials[0]): RP id login.other.org is not configured at the core (webauthn_rp_ids lists example.com); left behind, marked to re-enrol`,
    ]);
    const user = await call(core.t.app, 'GET', '/user/id', { query: { userId }, headers });
    expect(user.json.user.loginMethods.map((method: { recipeId: string }) => method.recipeId)).toEqual(['passwordless']);
  });
});

describe('migrate: passkeys into a core without webauthn_rp_ids', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore();
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  it('refuses the run naming the unset setting; a passkey without a public key does not stop it', async () => {
    const passkey = new SoftAuthenticator();
    const user = (id: string, email: string, credentialData: string) => ({
      id,
      username: email.split('@')[0],
      email,
      emailVerified: true,
      enabled: true,
      createdTimestamp: 1700000000000,
      credentials: [keycloakPbkdf2Credential('pw-12345'), { type: 'webauthn', credentialData }],
    });
    const withKey = JSON.stringify({ credentialId: b64(passkey.credentialId), credentialPublicKey: b64url(passkey.coseKey()), counter: 0 });
    const file = temp.file('realm-unset.json', keycloakRealm([user(crypto.randomUUID(), 'uma@example.com', withKey)]));
    const refused = await runCommand(migrateArgs(core, 'keycloak', file, '--rp-id', rpId));
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(
      "not configured for: example.com (1 passkey); the core's webauthn_rp_ids is unset. A passkey signs in only under the RP ID it was made for: the app must keep serving example.com",
    );

    const keyless = JSON.stringify({ credentialId: b64(passkey.credentialId), counter: 0 });
    const other = temp.file('realm-keyless.json', keycloakRealm([user(crypto.randomUUID(), 'vic@example.com', keyless)]));
    const run = await runCommand(migrateArgs(core, 'keycloak', other, '--rp-id', rpId));
    expect(run.code, run.stdout).toBe(0);
    expect(reportOf(other).notCarried[0].fields[0]).toContain('no public key at the source; left behind, marked to re-enrol');
  });
});
