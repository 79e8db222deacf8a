import crypto from 'node:crypto';
import { hash as argon2Hash } from '@node-rs/argon2';

// Export files in each provider's own format, built from known passwords so that sign-in can be checked.

/** A Keycloak `password` credential as a realm export writes it (pbkdf2-sha256, the default before argon2). */
export function keycloakPbkdf2Credential(password: string, iterations = 27500) {
  const salt = crypto.randomBytes(16);
  const value = crypto.pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  return {
    id: crypto.randomUUID(),
    type: 'password',
    userLabel: 'My password',
    createdDate: 1700000000000,
    secretData: JSON.stringify({ value: value.toString('base64'), salt: salt.toString('base64'), additionalParameters: {} }),
    credentialData: JSON.stringify({ hashIterations: iterations, algorithm: 'pbkdf2-sha256', additionalParameters: {} }),
  };
}

/** A Keycloak 24+ argon2 `password` credential: salt and hash as padded base64, parameters as lists of strings. */
export async function keycloakArgon2Credential(password: string) {
  const phc = await argon2Hash(password, { memoryCost: 1024, timeCost: 1, parallelism: 1 });
  const [, , , , salt, value] = phc.split('$');
  const padded = (text: string) => text + '='.repeat((4 - (text.length % 4)) % 4);
  return {
    id: crypto.randomUUID(),
    type: 'password',
    createdDate: 1700000000000,
    secretData: JSON.stringify({ value: padded(value), salt: padded(salt), additionalParameters: {} }),
    credentialData: JSON.stringify({
      hashIterations: 1,
      algorithm: 'argon2',
      additionalParameters: { hashLength: ['32'], memory: ['1024'], type: ['id'], version: ['1.3'], parallelism: ['1'] },
    }),
  };
}

export function keycloakOtpCredential(secret: string, data: Record<string, unknown>, userLabel?: string) {
  return {
    id: crypto.randomUUID(),
    type: 'otp',
    ...(userLabel !== undefined && { userLabel }),
    createdDate: 1700000000000,
    secretData: JSON.stringify({ value: secret }),
    credentialData: JSON.stringify({ subType: 'totp', digits: 6, counter: 0, period: 30, algorithm: 'HmacSHA1', ...data }),
  };
}

/** Recovery codes as Keycloak keeps them: the base64 SHA-512 of each code. */
export function keycloakRecoveryCredential(codes: string[]) {
  return {
    id: crypto.randomUUID(),
    type: 'recovery-authn-codes',
    createdDate: 1700000000000,
    secretData: JSON.stringify({
      codes: codes.map((code, i) => ({ number: i + 1, encodedHashedValue: crypto.createHash('sha512').update(code).digest('base64') })),
    }),
    credentialData: JSON.stringify({ hashIterations: 1, algorithm: 'RS512', totalCodes: codes.length, remainingCodes: codes.length }),
  };
}

/** A realm export: realm settings, roles, groups and clients come before the users, as kc.sh writes them. */
export function keycloakRealm(users: object[]): string {
  return JSON.stringify(
    {
      id: 'acme',
      realm: 'acme',
      enabled: true,
      roles: { realm: [{ name: 'app-admin', composite: false }], client: { shop: [{ name: 'buyer' }] } },
      groups: [{ name: 'staff', path: '/staff', subGroups: [{ name: 'editors', path: '/staff/editors' }] }],
      clients: [{ clientId: 'shop', enabled: true, redirectUris: ['https://shop.example.com/*'] }],
      users,
      keycloakVersion: '26.0.0',
    },
    null,
    2,
  );
}

/** A CSV table as `psql \copy … with (format csv, header)` writes it: quotes only where needed, `""` inside. */
export function pgCsv(columns: string[], rows: Record<string, string | object | null>[]): string {
  const cell = (value: string | object | null | undefined) => {
    if (value === null || value === undefined) return '';
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return /[",\n\r]/.test(text) || text === '' ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return `${[columns.join(','), ...rows.map((row) => columns.map((column) => cell(row[column])).join(','))].join('\n')}\n`;
}

export const SUPABASE_USER_COLUMNS = [
  'instance_id',
  'id',
  'aud',
  'role',
  'email',
  'encrypted_password',
  'email_confirmed_at',
  'invited_at',
  'confirmation_token',
  'recovery_token',
  'last_sign_in_at',
  'raw_app_meta_data',
  'raw_user_meta_data',
  'is_super_admin',
  'created_at',
  'updated_at',
  'phone',
  'phone_confirmed_at',
  'confirmed_at',
  'banned_until',
  'is_sso_user',
  'deleted_at',
  'is_anonymous',
];

export const SUPABASE_IDENTITY_COLUMNS = [
  'provider_id',
  'user_id',
  'identity_data',
  'provider',
  'last_sign_in_at',
  'created_at',
  'updated_at',
  'email',
  'id',
];

export const SUPABASE_FACTOR_COLUMNS = [
  'id',
  'user_id',
  'friendly_name',
  'factor_type',
  'status',
  'created_at',
  'updated_at',
  'secret',
  'phone',
  'last_challenged_at',
  'web_authn_credential',
  'web_authn_aaguid',
];

/** `auth.webauthn_credentials`: the passkeys a user signs in with (newer auth servers). */
export const SUPABASE_WEBAUTHN_COLUMNS = [
  'id',
  'user_id',
  'credential_id',
  'public_key',
  'attestation_type',
  'aaguid',
  'sign_count',
  'transports',
  'backup_eligible',
  'backed_up',
  'friendly_name',
  'created_at',
  'updated_at',
  'last_used_at',
];

export const CLERK_CSV_HEADER =
  'id,first_name,last_name,username,primary_email_address,primary_phone_number,verified_email_addresses,unverified_email_addresses,verified_phone_numbers,unverified_phone_numbers,totp_secret,password_digest,password_hasher';

/** A user as the Backend API's GET /v1/users answers it (the fields the reader reads, and some it does not). */
export function clerkApiUser(id: string, email: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    object: 'user',
    username: null,
    first_name: 'First',
    last_name: 'Last',
    image_url: `https://img.clerk.com/${id}`,
    has_image: false,
    primary_email_address_id: `idn_${id}`,
    primary_phone_number_id: null,
    primary_web3_wallet_id: null,
    password_enabled: true,
    two_factor_enabled: false,
    totp_enabled: false,
    backup_code_enabled: false,
    email_addresses: [
      {
        id: `idn_${id}`,
        object: 'email_address',
        email_address: email,
        verification: { status: 'verified', strategy: 'email_code' },
        linked_to: [],
      },
    ],
    phone_numbers: [],
    web3_wallets: [],
    passkeys: [],
    external_accounts: [],
    saml_accounts: [],
    public_metadata: {},
    private_metadata: {},
    unsafe_metadata: {},
    external_id: null,
    last_sign_in_at: 1700000500000,
    banned: false,
    locked: false,
    created_at: 1700000000000,
    updated_at: 1700000600000,
    ...extra,
  };
}

/** RFC 4648 base32 (any case, padding optional), written here so tests do not lean on the core's decoder. */
export function base32Bytes(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.toUpperCase().replace(/=+$/, '')) {
    value = (value << 5) | alphabet.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 6238 with node's HMAC: the code an authenticator app shows for this key at this time. */
export function authenticatorCode(
  key: Buffer,
  options: { algorithm?: 'sha1' | 'sha256' | 'sha512'; digits?: number; period?: number; at?: number } = {},
) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor((options.at ?? Date.now()) / 1000 / (options.period ?? 30))));
  const mac = crypto
    .createHmac(options.algorithm ?? 'sha1', key)
    .update(counter)
    .digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** (options.digits ?? 6)).padStart(options.digits ?? 6, '0');
}
