import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { exportJWK, importPKCS8, importSPKI, type CryptoKey, type JWK } from 'jose';

const generateKeyPair = promisify(crypto.generateKeyPair);

// RS256 with 2048-bit keys: the SDK's JWKS client (jose) refuses RSA moduli under 2048 bits.
export const signingAlgorithm = 'RS256';
const modulusLength = 2048;

/** A key pair as stored: base64 DER, X.509 SubjectPublicKeyInfo and PKCS#8. */
export interface StoredKeyPair {
  publicKey: string;
  privateKey: string;
}

/** A key ready to sign and verify, with its public JWK for the JWKS document. */
export interface SigningKey {
  kid: string;
  createdAt: number;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

// node:crypto's callback form generates in the thread pool, so a rotation never blocks requests.
export async function generateStoredKeyPair(): Promise<StoredKeyPair> {
  const pair = await generateKeyPair('rsa', {
    modulusLength,
    publicExponent: 0x10001,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  });
  return { publicKey: pair.publicKey.toString('base64'), privateKey: pair.privateKey.toString('base64') };
}

const pem = (label: string, base64: string) => `-----BEGIN ${label}-----\n${base64.replace(/(.{64})/g, '$1\n')}\n-----END ${label}-----`;

export async function loadSigningKey(kid: string, createdAt: number, stored: StoredKeyPair): Promise<SigningKey> {
  const [privateKey, publicKey] = await Promise.all([
    importPKCS8(pem('PRIVATE KEY', stored.privateKey), signingAlgorithm),
    importSPKI(pem('PUBLIC KEY', stored.publicKey), signingAlgorithm, { extractable: true }),
  ]);
  const { kty, n, e } = await exportJWK(publicKey);
  return { kid, createdAt, privateKey, publicKey, jwk: { kty, kid, n, e, alg: signingAlgorithm, use: 'sig' } };
}

// The reference core's storage form for dynamic keys: public and private key in one column.
export function joinKeyPair(pair: StoredKeyPair): string {
  return `${pair.publicKey}|${pair.privateKey}`;
}

export function splitKeyPair(value: string): StoredKeyPair {
  const [publicKey, privateKey] = value.split('|');
  return { publicKey, privateKey };
}
