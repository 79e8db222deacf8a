import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SoftAuthenticator } from '../recipes/webauthn/authenticator.js';
import { pgCsv, SUPABASE_FACTOR_COLUMNS, SUPABASE_USER_COLUMNS, SUPABASE_WEBAUTHN_COLUMNS } from '../cli/carry/exports.js';
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

// Supabase's auth tables as `\copy … with (format csv, header)` writes them, carried by the real migration command
// and used through the app on supertokens-node: a passkey of `auth.webauthn_credentials` signs in alone under the old
// user id, and a verified `webauthn` factor of `auth.mfa_factors` completes the second factor after the password.

const row = (columns: string[], values: Record<string, string | object>) =>
  Object.fromEntries(columns.map((column) => [column, values[column] ?? '']));

describe('passkeys migrated from Supabase sign in through the app', () => {
  const temp = makeTempDir();
  let app: PasskeyApp;
  const only = new SoftAuthenticator({ counterStep: 1 });
  const second = new SoftAuthenticator({ counterStep: 1 });
  const onlyId = crypto.randomUUID();
  const secondId = crypto.randomUUID();

  beforeAll(async () => {
    app = await startPasskeyApp();
    // The auth server's user handle: the UTF-8 of the user's UUID.
    only.userHandle = b64url(Buffer.from(onlyId));
    second.userHandle = b64url(Buffer.from(secondId));
    const user = (id: string, email: string, password: string) =>
      row(SUPABASE_USER_COLUMNS, {
        id,
        aud: 'authenticated',
        role: 'authenticated',
        email,
        encrypted_password: password,
        email_confirmed_at: '2024-01-02 03:04:05.123456+00',
        created_at: '2024-01-02 03:04:05.123456+00',
        raw_app_meta_data: { provider: 'email', providers: ['email'] },
        raw_user_meta_data: {},
        is_sso_user: 'f',
        is_anonymous: 'f',
      });
    const users = pgCsv(SUPABASE_USER_COLUMNS, [
      user(onlyId, 'pia@example.com', ''),
      user(secondId, 'sam@example.com', bcryptHash('sam-password')),
    ]);
    // bytea columns as \copy writes them: \x and hex.
    const passkeys = pgCsv(SUPABASE_WEBAUTHN_COLUMNS, [
      row(SUPABASE_WEBAUTHN_COLUMNS, {
        id: crypto.randomUUID(),
        user_id: onlyId,
        credential_id: `\\x${only.credentialId.toString('hex')}`,
        public_key: `\\x${only.coseKey().toString('hex')}`,
        attestation_type: 'none',
        sign_count: '2',
        transports: '["internal","hybrid"]',
        backup_eligible: 't',
        backed_up: 't',
        friendly_name: 'MacBook',
        created_at: '2024-03-01 00:00:00+00',
        updated_at: '2024-03-01 00:00:00+00',
      }),
    ]);
    // web_authn_credential: go-webauthn's Credential as JSON.
    const factors = pgCsv(SUPABASE_FACTOR_COLUMNS, [
      row(SUPABASE_FACTOR_COLUMNS, {
        id: crypto.randomUUID(),
        user_id: secondId,
        friendly_name: 'YubiKey',
        factor_type: 'webauthn',
        status: 'verified',
        created_at: '2024-03-01 00:00:00+00',
        updated_at: '2024-03-01 00:00:00+00',
        web_authn_credential: {
          id: b64(second.credentialId),
          publicKey: b64(second.coseKey()),
          attestationType: 'none',
          transport: ['usb'],
          flags: { userPresent: true, userVerified: true, backupEligible: false, backupState: false },
          authenticator: { AAGUID: b64(Buffer.alloc(16)), signCount: 5, cloneWarning: false, attachment: 'cross-platform' },
        },
      }),
    ]);
    await app.migrate(
      'supabase',
      temp.file('users.csv', users),
      '--webauthn-credentials',
      temp.file('webauthn_credentials.csv', passkeys),
      '--mfa-factors',
      temp.file('mfa_factors.csv', factors),
      '--rp-id',
      rpId,
    );
    // The stored counters (2 and 5): each authenticator's next assertion is above its own.
    only.counter = 2;
    second.counter = 5;
  });
  afterAll(async () => {
    await app?.close();
    temp.remove();
  });

  it('a passkey-only user signs in with the same private key and reaches the protected route as the Supabase id', async () => {
    // A Supabase user without a password signs in by email link or code too: both are kept.
    await expectPasskeySignIn(app, only, onlyId, ['webauthn', 'passwordless']);
  });

  it('a password user is stopped at MFA and completes the second factor with the carried WebAuthn factor', async () => {
    await expectPasskeySecondFactor(app, { factor: 'emailpassword', email: 'sam@example.com', password: 'sam-password' }, second, secondId);
  });
});
