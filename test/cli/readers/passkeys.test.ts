import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';
import { carryPasskeys, toBase64Url, uuidOf, type FoundPasskey } from '../../../src/cli/readers/passkeys.js';
import { hankoRecord } from '../../../src/cli/readers/hanko.js';
import { kratosRecord } from '../../../src/cli/readers/kratos.js';
import { SoftAuthenticator } from '../../recipes/webauthn/authenticator.js';

const context = { rpId: 'example.com', coreRpIds: ['example.com'] };
const common = { isVerified: true, timeJoinedInMSSinceEpoch: 1 };

function found(authenticator: SoftAuthenticator, extra: Partial<FoundPasskey> = {}): FoundPasskey {
  return {
    where: 'here',
    credentialId: authenticator.credentialId.toString('base64'),
    publicKey: authenticator.coseKey().toString('base64'),
    secondFactor: false,
    ...extra,
  };
}

describe('carryPasskeys', () => {
  it('takes standard base64 ids and keys, sends the id as unpadded base64url and the COSE key as it is', () => {
    const key = new SoftAuthenticator();
    const outcome = carryPasskeys([found(key, { counter: 7, userHandle: Buffer.from('user-1') })], 'a@example.com', common, context);
    expect(outcome.candidate?.problem).toBeUndefined();
    expect(outcome.candidate?.method.credentials).toEqual([
      { credentialId: key.id, publicKey: key.coseKey().toString('base64url'), rpId: 'example.com', counter: 7, userHandle: 'dXNlci0x' },
    ]);
    expect(outcome.rpIds).toEqual(['example.com']);
  });

  it('converts an SPKI (DER) public key to the COSE key of the same key, ES256 and RS256', () => {
    for (const alg of ['ES256', 'RS256'] as const) {
      const key = new SoftAuthenticator({ alg });
      const spki = key.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
      const outcome = carryPasskeys([found(key, { publicKey: spki })], 'a@example.com', common, context);
      const cose = Buffer.from(outcome.candidate!.method.credentials![0].publicKey, 'base64url');
      expect(decodeCredentialPublicKey(new Uint8Array(cose))).toEqual(decodeCredentialPublicKey(new Uint8Array(key.coseKey())));
    }
  });

  it('leaves a passkey behind, naming the reason, and carries the others', () => {
    const good = new SoftAuthenticator();
    const p384 = crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'der', type: 'spki' });
    const outcome = carryPasskeys(
      [
        found(good),
        found(new SoftAuthenticator(), { where: 'other-rp', rpId: 'other.org' }),
        found(new SoftAuthenticator(), { where: 'no-key', publicKey: undefined }),
        found(new SoftAuthenticator(), { where: 'p384', publicKey: p384.toString('base64') }),
        found(new SoftAuthenticator(), { where: 'not-cose', publicKey: Buffer.from([0xa1, 0x01]).toString('base64') }),
      ],
      'a@example.com',
      common,
      context,
    );
    expect(outcome.candidate?.method.credentials?.map((credential) => credential.credentialId)).toEqual([good.id]);
    expect(outcome.reEnrol).toBe(true);
    const reasons = outcome.notCarried.map((line) => line.replace(/^passkey \S+ /, ''));
    expect(reasons).toEqual([
      '(other-rp): RP id other.org is not configured at the core (webauthn_rp_ids lists example.com); left behind, marked to re-enrol',
      '(no-key): no public key at the source; left behind, marked to re-enrol',
      '(p384): the public key is neither a COSE key nor an SPKI key; left behind, marked to re-enrol',
      expect.stringMatching(/^\(not-cose\): credentials\[0\]\.publicKey .*; left behind, marked to re-enrol$/),
    ]);
  });

  it('without --rp-id or a core that imports passkeys, says what to do', () => {
    const key = new SoftAuthenticator();
    expect(carryPasskeys([found(key)], 'a@example.com', common, { coreRpIds: ['example.com'] }).notCarried[0]).toContain(
      'the export does not say its relying-party id: pass --rp-id',
    );
    expect(carryPasskeys([found(key)], 'a@example.com', common, { rpId: 'example.com', coreRpIds: null }).notCarried[0]).toContain(
      'its setting webauthn_rp_ids is unset',
    );
  });

  it('a passkey user without an email cannot be carried: the method says why', () => {
    const outcome = carryPasskeys([found(new SoftAuthenticator())], undefined, common, context);
    expect(outcome.candidate?.problem).toBe('passkey user without an email (the core keeps a passkey under an email)');
  });
});

describe('passkey readers', () => {
  it('kratos: a webauthn credential that is not passwordless is a second factor after the password', () => {
    const key = new SoftAuthenticator();
    const record = kratosRecord(
      {
        id: 'k-1',
        traits: { email: 'k@example.com' },
        credentials: {
          password: { config: { hashed_password: '$2a$10$abcdefghijklmnopqrstuuJm1yBbKUu2SIhc0eKSkMb2tqcv0ZW2u' } },
          webauthn: {
            config: {
              user_handle: 'dXNlcjE=',
              credentials: [
                { id: key.credentialId.toString('base64'), public_key: key.coseKey().toString('base64'), is_passwordless: false },
              ],
            },
          },
        },
      },
      0,
      { includeDisabled: false, providerOverrides: new Map(), carry: { source: 'kratos', markedAt: 1, passkeys: context } },
    );
    expect(record.user?.loginMethods.map((method) => method.recipeId)).toEqual(['emailpassword', 'webauthn']);
    expect(record.user?.userMetadata?._supertokens).toEqual({ requiredSecondaryFactors: ['webauthn'] });
    expect(record.user?.loginMethods[1].credentials?.[0].userHandle).toBe(Buffer.from('user1').toString('base64url'));
  });

  it('hanko: an mfa_only credential is a second factor; the user handle is the UUID bytes', () => {
    const key = new SoftAuthenticator();
    const id = '0b4f1d4e-0000-4000-8000-00000000abcd';
    const record = hankoRecord(
      {
        id,
        emails: [{ address: 'h@example.com', is_primary: true, is_verified: true }],
        webauthn_credentials: [
          { id: key.id, public_key: key.coseKey().toString('base64url'), mfa_only: true, aaguid: 'FBFC3007-154E-4ECC-8C0B-6E020557D7BD' },
        ],
      },
      0,
      { includeDisabled: false, providerOverrides: new Map(), carry: { source: 'hanko', markedAt: 1, passkeys: context } },
    );
    expect(record.user?.loginMethods.map((method) => method.recipeId)).toEqual(['passwordless', 'webauthn']);
    expect(record.user?.userMetadata?._supertokens).toEqual({ requiredSecondaryFactors: ['webauthn'] });
    const [credential] = record.user!.loginMethods[1].credentials!;
    expect(credential.userHandle).toBe(Buffer.from(id.replace(/-/g, ''), 'hex').toString('base64url'));
    expect(credential.aaguid).toBe('fbfc3007-154e-4ecc-8c0b-6e020557d7bd');
  });

  it('helpers: base64 to base64url, UUIDs from text or 16 bytes', () => {
    expect(toBase64Url('+/8=')).toBe('-_8');
    expect(toBase64Url('+_8')).toBeUndefined();
    expect(uuidOf(Buffer.alloc(16, 0xab).toString('base64'))).toBe('abababab-abab-abab-abab-abababababab');
    expect(uuidOf('nope')).toBeUndefined();
  });
});
