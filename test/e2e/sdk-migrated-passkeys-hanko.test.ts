import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SoftAuthenticator } from '../recipes/webauthn/authenticator.js';
import { makeTempDir } from '../cli/fixtures.js';
import { b64url, expectPasskeySecondFactor, expectPasskeySignIn, rpId, startPasskeyApp, type PasskeyApp } from './app/migrated-passkeys.js';

// Hanko users as its admin API answers `GET /users/{id}`, carried by the real migration command and used through the
// app on supertokens-node: a passkey signs in alone under the old user id, and an `mfa_only` security key completes
// the second factor after an email code (Hanko's passcode; its admin API gives out no password hash, so the code is
// the first factor that moves).

function hankoUser(id: string, email: string, authenticator: SoftAuthenticator, mfaOnly: boolean) {
  return {
    id,
    emails: [{ id: crypto.randomUUID(), address: email, is_verified: true, is_primary: true }],
    webauthn_credentials: [
      {
        id: b64url(authenticator.credentialId),
        name: mfaOnly ? 'Security key' : 'iPhone',
        public_key: b64url(authenticator.coseKey()),
        attestation_type: 'none',
        aaguid: mfaOnly ? '00000000-0000-0000-0000-000000000000' : 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
        created_at: '2024-04-01T10:00:00Z',
        transports: mfaOnly ? ['usb'] : ['internal', 'hybrid'],
        backup_eligible: !mfaOnly,
        backup_state: !mfaOnly,
        mfa_only: mfaOnly,
      },
    ],
    created_at: '2024-04-01T09:00:00Z',
    updated_at: '2024-04-01T10:00:00Z',
  };
}

describe('passkeys migrated from Hanko sign in through the app', () => {
  const temp = makeTempDir();
  let app: PasskeyApp;
  const only = new SoftAuthenticator();
  const second = new SoftAuthenticator({ counterStep: 1 });
  const onlyId = crypto.randomUUID();
  const secondId = crypto.randomUUID();

  beforeAll(async () => {
    app = await startPasskeyApp();
    // Hanko's user handle: the 16 bytes of the user's UUID.
    only.userHandle = b64url(Buffer.from(onlyId.replace(/-/g, ''), 'hex'));
    second.userHandle = b64url(Buffer.from(secondId.replace(/-/g, ''), 'hex'));
    const users = [hankoUser(onlyId, 'pia@example.com', only, false), hankoUser(secondId, 'sam@example.com', second, true)];
    await app.migrate('hanko', temp.file('users.json', JSON.stringify(users)), '--rp-id', rpId);
  });
  afterAll(async () => {
    await app?.close();
    temp.remove();
  });

  it('a passkey user signs in with the same private key and reaches the protected route as the Hanko id', async () => {
    // Hanko users sign in with an email code too: it is kept beside the passkey.
    await expectPasskeySignIn(app, only, onlyId, ['webauthn', 'passwordless']);
  });

  it('an email-code user is stopped at MFA and completes the second factor with the carried mfa_only security key', async () => {
    await expectPasskeySecondFactor(app, { factor: 'otp-email', email: 'sam@example.com' }, second, secondId);
  });
});
