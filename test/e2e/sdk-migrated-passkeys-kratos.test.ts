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

// Ory Kratos identities as the admin API lists them with their credentials, carried by the real migration command and
// used through the app on supertokens-node: a `passkey` credential signs in alone under the old identity id, and a
// `webauthn` credential that is not passwordless completes the second factor after the password (AAL2 at Kratos).

function kratosCredential(authenticator: SoftAuthenticator, passwordless: boolean, signCount: number) {
  return {
    id: b64(authenticator.credentialId),
    public_key: b64(authenticator.coseKey()),
    attestation_type: 'none',
    authenticator: { aaguid: b64(Buffer.alloc(16)), sign_count: signCount, clone_warning: false },
    display_name: passwordless ? 'Phone' : 'Security key',
    added_at: '2024-01-02T03:04:05Z',
    is_passwordless: passwordless,
  };
}

function identity(id: string, email: string, credentials: Record<string, unknown>) {
  return {
    id,
    schema_id: 'default',
    state: 'active',
    traits: { email },
    verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }],
    created_at: '2024-01-02T03:04:05.123Z',
    credentials,
  };
}

describe('passkeys migrated from Ory Kratos sign in through the app', () => {
  const temp = makeTempDir();
  let app: PasskeyApp;
  const only = new SoftAuthenticator({ counterStep: 1 });
  const second = new SoftAuthenticator({ counterStep: 1 });
  const onlyId = crypto.randomUUID();
  const secondId = crypto.randomUUID();

  beforeAll(async () => {
    app = await startPasskeyApp();
    // Kratos keeps one user handle per identity in each credential's config: random bytes for passkeys, the
    // identity id's bytes for webauthn.
    const passkeyHandle = crypto.randomBytes(64);
    const webauthnHandle = Buffer.from(secondId.replace(/-/g, ''), 'hex');
    only.userHandle = b64url(passkeyHandle);
    second.userHandle = b64url(webauthnHandle);
    const identities = [
      identity(onlyId, 'pia@example.com', {
        passkey: {
          type: 'passkey',
          identifiers: [b64(passkeyHandle)],
          config: { user_handle: b64(passkeyHandle), credentials: [kratosCredential(only, true, 0)] },
          version: 0,
        },
      }),
      identity(secondId, 'sam@example.com', {
        password: {
          type: 'password',
          identifiers: ['sam@example.com'],
          config: { hashed_password: bcryptHash('sam-password') },
          version: 0,
        },
        webauthn: {
          type: 'webauthn',
          identifiers: [secondId],
          config: { user_handle: b64(webauthnHandle), credentials: [kratosCredential(second, false, 7)] },
          version: 1,
        },
      }),
    ];
    await app.migrate('kratos', temp.file('identities.json', JSON.stringify(identities)), '--rp-id', rpId);
    // Kratos stored sign count 7 for the security key: its next assertion is above it.
    second.counter = 7;
  });
  afterAll(async () => {
    await app?.close();
    temp.remove();
  });

  it('a passkey-only identity signs in with the same private key and reaches the protected route as the Kratos id', async () => {
    await expectPasskeySignIn(app, only, onlyId);
  });

  it('a password identity is stopped at MFA and completes the second factor with its carried webauthn key', async () => {
    await expectPasskeySecondFactor(app, { factor: 'emailpassword', email: 'sam@example.com', password: 'sam-password' }, second, secondId);
  });
});
