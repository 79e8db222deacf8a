import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SoftAuthenticator } from '../recipes/webauthn/authenticator.js';
import { keycloakPbkdf2Credential, keycloakRealm } from '../cli/carry/exports.js';
import { makeTempDir } from '../cli/fixtures.js';
import {
  b64,
  b64url,
  expectPasskeySecondFactor,
  expectPasskeySignIn,
  rpId,
  startPasskeyApp,
  type PasskeyApp,
} from './app/migrated-passkeys.js';

// Passkeys carried from a Keycloak realm export by the real migration command, then used through the app a customer
// builds on supertokens-node: the same private key signs in under the old Keycloak user id, and a password user's
// passkey completes the second factor (contract-webauthn W-4, W-6). The other sources: sdk-migrated-passkeys-*.test.ts.

function credentialData(authenticator: SoftAuthenticator) {
  return JSON.stringify({
    aaguid: '00000000-0000-0000-0000-000000000000',
    credentialId: b64(authenticator.credentialId),
    credentialPublicKey: b64url(authenticator.coseKey()),
    counter: 3,
    attestationStatementFormat: 'none',
    transports: ['internal'],
  });
}

describe('passkeys migrated from Keycloak sign in through the app', () => {
  const temp = makeTempDir();
  let app: PasskeyApp;
  const only = new SoftAuthenticator({ counterStep: 1 });
  const second = new SoftAuthenticator({ alg: 'RS256', counterStep: 1 });
  const onlyId = crypto.randomUUID();
  const secondId = crypto.randomUUID();

  beforeAll(async () => {
    app = await startPasskeyApp();
    // Keycloak's user handle: the UTF-8 bytes of the user's id.
    only.userHandle = b64url(Buffer.from(onlyId));
    second.userHandle = b64url(Buffer.from(secondId));
    const realm = keycloakRealm([
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
    ]);
    await app.migrate('keycloak', temp.file('realm.json', realm), '--rp-id', rpId);
    // Keycloak stored counter 3; the authenticator's next assertion must be above it.
    only.counter = 3;
    second.counter = 3;
  });
  afterAll(async () => {
    await app?.close();
    temp.remove();
  });

  it('a passkey-only user signs in with the same private key and reaches the protected route as the Keycloak id', async () => {
    await expectPasskeySignIn(app, only, onlyId);
  });

  it('a password user is stopped at MFA and completes the second factor with the carried passkey', async () => {
    await expectPasskeySecondFactor(app, { factor: 'emailpassword', email: 'sam@example.com', password: 'sam-password' }, second, secondId);
  });
});
