// Hashes made by implementations other than the ones under test, so a shared misunderstanding of a
// format cannot make both sides agree.
import { hashSync as nodeRsArgon2Hash, type Algorithm, type Version } from '@node-rs/argon2';
import bcryptjs from 'bcryptjs';
import { FirebaseScrypt } from 'firebase-scrypt';

export interface Vector {
  description: string;
  password: string;
  hash: string;
}

// @node-rs/argon2 declares these as const enums, which do not exist at runtime under vitest.
const ARGON2D = 0 as Algorithm;
const ARGON2I = 1 as Algorithm;
const ARGON2ID = 2 as Algorithm;
const V0X10 = 0 as Version;
const V0X13 = 1 as Version;

export const NON_ASCII_PASSWORD = 'pässwörd-✓-密码';

function bcryptWithVariant(variant: 'a' | 'b' | 'y', cost: number, password: string): string {
  const salt = bcryptjs.genSaltSync(cost);
  return bcryptjs.hashSync(password, `$2${variant}` + salt.slice(3));
}

const asciiForX = bcryptWithVariant('a', 4, 'x-variant password');
export const BCRYPT_VECTORS: Vector[] = [
  { description: '$2b$ cost 4', password: 'correct horse', hash: bcryptjs.hashSync('correct horse', 4) },
  { description: '$2a$ cost 5', password: 'battery staple', hash: bcryptWithVariant('a', 5, 'battery staple') },
  { description: '$2y$ cost 4', password: 'php made me', hash: bcryptWithVariant('y', 4, 'php made me') },
  // bcryptjs cannot write $2x$; for an ASCII password it is the same computation as $2a$.
  { description: '$2x$ cost 4 (renamed $2a$)', password: 'x-variant password', hash: '$2x' + asciiForX.slice(3) },
  { description: 'non-ASCII password', password: NON_ASCII_PASSWORD, hash: bcryptjs.hashSync(NON_ASCII_PASSWORD, 4) },
];

const cheap = { memoryCost: 64, timeCost: 1, parallelism: 1 };
const argon2idV16 = nodeRsArgon2Hash('no version field', { ...cheap, algorithm: ARGON2ID, version: V0X10 });
export const ARGON2_VECTORS: Vector[] = [
  {
    description: 'argon2id v19',
    password: 'correct horse',
    hash: nodeRsArgon2Hash('correct horse', { memoryCost: 256, timeCost: 2, parallelism: 1, algorithm: ARGON2ID }),
  },
  {
    description: 'argon2i v16, 2 lanes',
    password: 'battery staple',
    hash: nodeRsArgon2Hash('battery staple', { ...cheap, parallelism: 2, algorithm: ARGON2I, version: V0X10 }),
  },
  {
    description: 'argon2d v19, 4 lanes, 16-byte hash',
    password: 'tr0ub4dor&3',
    hash: nodeRsArgon2Hash('tr0ub4dor&3', {
      memoryCost: 128,
      timeCost: 1,
      parallelism: 4,
      outputLen: 16,
      algorithm: ARGON2D,
      version: V0X13,
    }),
  },
  { description: 'argon2id without v= (version 16)', password: 'no version field', hash: argon2idV16.replace('$v=16', '') },
  {
    description: 'argon2id non-ASCII password',
    password: NON_ASCII_PASSWORD,
    hash: nodeRsArgon2Hash(NON_ASCII_PASSWORD, { ...cheap, algorithm: ARGON2ID }),
  },
];

/** Published vector of contract §6.6. */
export const SIGNER_KEY = 'gRhC3eDeQOdyEn4bMd9c6kxguWVmcIVq/SKa0JDPFeM6TcEevkaW56sIWfx88OHbJKnCXdWscZx0l2WbCJ1wbg==';
export const PUBLISHED_SCRYPT = {
  password: 'testPass123',
  hash: 'qZM035es5AXYqavsKD6/rhtxg7t5PhcyRgv5blc3doYbChX8keMfQLq1ra96O2Pf2TP/eZrR5xtPCYN6mX3ESA==',
  salt: '/cj0jC1br5o4+w==',
  separator: 'Bw==',
};
export const PUBLISHED_SCRYPT_HASH = `$f_scrypt$${PUBLISHED_SCRYPT.hash}$${PUBLISHED_SCRYPT.salt}$m=14$r=8$s=${PUBLISHED_SCRYPT.separator}`;

export function toUrlSafeUnpadded(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function firebaseScryptVector(password: string, salt: string, memCost: number, rounds: number): Promise<string> {
  const separator = PUBLISHED_SCRYPT.separator;
  const hasher = new FirebaseScrypt({ memCost, rounds, saltSeparator: separator, signerKey: SIGNER_KEY });
  return `$f_scrypt$${await hasher.hash(password, salt)}$${salt}$m=${memCost}$r=${rounds}$s=${separator}`;
}

export const SCRYPT_VECTORS: Vector[] = [
  { description: 'published vector (m=14, r=8)', password: PUBLISHED_SCRYPT.password, hash: PUBLISHED_SCRYPT_HASH },
  {
    description: 'published vector, URL-safe alphabet without padding',
    password: PUBLISHED_SCRYPT.password,
    hash:
      `$f_scrypt$${toUrlSafeUnpadded(PUBLISHED_SCRYPT.hash)}$${toUrlSafeUnpadded(PUBLISHED_SCRYPT.salt)}` +
      `$m=14$r=8$s=${toUrlSafeUnpadded(PUBLISHED_SCRYPT.separator)}`,
  },
  {
    description: 'published vector, parameters reordered',
    password: PUBLISHED_SCRYPT.password,
    hash: `$f_scrypt$${PUBLISHED_SCRYPT.hash}$${PUBLISHED_SCRYPT.salt}$s=Bw==$r=8$m=14`,
  },
  {
    description: 'firebase-scrypt m=10, r=4',
    password: 'hunter2',
    hash: await firebaseScryptVector('hunter2', 'c2FsdHlzYWx0eQ==', 10, 4),
  },
  {
    description: 'firebase-scrypt non-ASCII password (UTF-8)',
    password: NON_ASCII_PASSWORD,
    hash: await firebaseScryptVector(NON_ASCII_PASSWORD, 'AAECAwQFBgcICQ==', 12, 8),
  },
];

/** Changes one character of the digest, away from its ends so it stays decodable. */
export function flipDigestCharacter(hash: string, digestStart: number): string {
  const index = digestStart + 5;
  const replacement = hash[index] === 'A' ? 'B' : 'A';
  return hash.slice(0, index) + replacement + hash.slice(index + 1);
}
