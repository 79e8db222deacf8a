import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SoftAuthenticator } from '../recipes/webauthn/authenticator.js';
import { bcryptHash, makeTempDir } from '../cli/fixtures.js';
import {
  b64,
  b64url,
  expectPasskeySecondFactor,
  expectPasskeySignIn,
  rpId,
  startPasskeyApp,
  type PasskeyApp,
} from './app/migrated-passkeys.js';

// Auth0 users (the user export), their password hashes (the password-hash export) and their WebAuthn methods as the
// Management API's authentication-methods endpoint answers them, carried by the real migration command and used
// through the app on supertokens-node: a `passkey` (made on the tenant's custom domain) signs in alone under the old
// Auth0 user id, and a `webauthn-platform` MFA enrolment (Windows Hello: RS256) completes the second factor after the
// password. MFA enrolments carry no relying-party id: it is the custom domain, given by --rp-id.

const databaseUser = (id: string, email: string) => ({
  user_id: `auth0|${id}`,
  email,
  email_verified: true,
  created_at: '2024-01-02T03:04:05.678Z',
  identities: [{ provider: 'auth0', user_id: id, connection: 'Username-Password-Authentication', isSocial: false }],
});

describe('passkeys migrated from Auth0 sign in through the app', () => {
  const temp = makeTempDir();
  let app: PasskeyApp;
  const only = new SoftAuthenticator();
  const second = new SoftAuthenticator({ alg: 'RS256', counterStep: 1 });
  const onlyId = 'auth0|6500aa11bb22cc33dd44ee55';
  const secondId = 'auth0|6500aa11bb22cc33dd44ee66';

  beforeAll(async () => {
    app = await startPasskeyApp();
    const handle = crypto.randomBytes(32);
    only.userHandle = b64url(handle);
    const users = [
      databaseUser('6500aa11bb22cc33dd44ee55', 'pia@example.com'),
      databaseUser('6500aa11bb22cc33dd44ee66', 'sam@example.com'),
    ];
    // The passkey user has no password, so no line in the password-hash export.
    const hashes = [
      {
        _id: { $oid: '6500aa11bb22cc33dd44ee66' },
        email: 'sam@example.com',
        passwordHash: bcryptHash('sam-password'),
        connection: 'Username-Password-Authentication',
      },
    ];
    const methods = {
      [onlyId]: [
        {
          id: 'passkey|dev_pia1',
          type: 'passkey',
          confirmed: true,
          key_id: b64url(only.credentialId),
          public_key: b64(only.coseKey()),
          user_handle: b64url(handle),
          aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
          transports: ['hybrid', 'internal'],
          credential_device_type: 'multi_device',
          credential_backed_up: true,
          relying_party_identifier: rpId,
          created_at: '2024-02-01T00:00:00.000Z',
          usage: ['primary'],
        },
      ],
      [secondId]: [
        {
          id: 'webauthn-platform|dev_sam1',
          type: 'webauthn-platform',
          confirmed: true,
          name: 'Windows Hello',
          key_id: b64url(second.credentialId),
          public_key: b64(second.coseKey()),
          created_at: '2024-02-01T00:00:00.000Z',
          usage: ['secondary'],
        },
      ],
    };
    const ndjson = (rows: object[]) => rows.map((row) => JSON.stringify(row)).join('\n') + '\n';
    await app.migrate(
      'auth0',
      temp.file('users.json', ndjson(users)),
      '--password-hashes',
      temp.file('hashes.json', ndjson(hashes)),
      '--authentication-methods',
      temp.file('methods.json', JSON.stringify(methods)),
      '--rp-id',
      rpId,
    );
  });
  afterAll(async () => {
    await app?.close();
    temp.remove();
  });

  it('a passkey-only user signs in with the same private key and reaches the protected route as the Auth0 id', async () => {
    await expectPasskeySignIn(app, only, onlyId);
  });

  it('a password user is stopped at MFA and completes the second factor with the carried Windows Hello key (RS256)', async () => {
    await expectPasskeySecondFactor(app, { factor: 'emailpassword', email: 'sam@example.com', password: 'sam-password' }, second, secondId);
  });
});
