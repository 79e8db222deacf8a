import { describe, expect, it } from 'vitest';
import { hashSync as nodeRsArgon2Hash, type Algorithm, type Version } from '@node-rs/argon2';
import { useTestApp } from '../../helper.js';
import {
  ARGON2_VECTORS,
  BCRYPT_VECTORS,
  NON_ASCII_PASSWORD,
  PUBLISHED_SCRYPT,
  PUBLISHED_SCRYPT_HASH,
  SCRYPT_VECTORS,
  SIGNER_KEY,
  toUrlSafeUnpadded,
  type Vector,
} from '../../hashing/vectors.js';
import { importHash, signIn, signedIn } from './fixtures.js';

// @node-rs/argon2's const enums do not exist at runtime under vitest.
const ARGON2ID = 2 as Algorithm;
const ARGON2D = 0 as Algorithm;
const V0X10 = 0 as Version;

// The shared vectors lack an explicit `$v=16$` argon2id and a non-ASCII argon2d; both made here, independently.
const EXTRA_ARGON2: Vector[] = [
  {
    description: 'argon2id with an explicit v=16',
    password: 'sixteen',
    hash: nodeRsArgon2Hash('sixteen', { memoryCost: 64, timeCost: 1, parallelism: 1, algorithm: ARGON2ID, version: V0X10 }),
  },
  {
    description: 'argon2d non-ASCII password',
    password: NON_ASCII_PASSWORD,
    hash: nodeRsArgon2Hash(NON_ASCII_PASSWORD, { memoryCost: 64, timeCost: 1, parallelism: 1, algorithm: ARGON2D }),
  },
];

const cases = [
  ...BCRYPT_VECTORS.map((vector) => ({ ...vector, algorithm: 'BCRYPT' })),
  ...[...ARGON2_VECTORS, ...EXTRA_ARGON2].map((vector) => ({ ...vector, algorithm: 'ARGON2' })),
  ...SCRYPT_VECTORS.map((vector) => ({ ...vector, algorithm: 'IDP_SCRYPT' })),
];

describe('import → sign-in round trip for every supported format', () => {
  const t = useTestApp({ idp_password_hashing_signer_key: SIGNER_KEY });

  it('covers bcrypt $2a/$2b/$2y/$2x, argon2 i/d/id at v16 and v19, the published scrypt vector and its URL-safe form', () => {
    expect(cases.map(({ hash }) => hash.split('$')[1]).sort()).toEqual(
      expect.arrayContaining(['2a', '2b', '2x', '2y', 'argon2i', 'argon2d', 'argon2id', 'f_scrypt']),
    );
    const argon2Versions = cases.filter(({ hash }) => hash.startsWith('$argon2')).map(({ hash }) => /\$v=(\d+)\$/.exec(hash)?.[1] ?? '16');
    expect(new Set(argon2Versions)).toEqual(new Set(['16', '19']));
    expect(cases.some(({ hash }) => hash === PUBLISHED_SCRYPT_HASH)).toBe(true);
    const urlSafeDigest = toUrlSafeUnpadded(PUBLISHED_SCRYPT.hash);
    expect(urlSafeDigest).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cases.some(({ hash }) => hash.startsWith(`$f_scrypt$${urlSafeDigest}$`))).toBe(true);
    expect(cases.filter(({ password }) => password === NON_ASCII_PASSWORD).length).toBeGreaterThanOrEqual(4);
  });

  it.each(
    cases.flatMap((vector, index) => [
      { ...vector, email: `detected-${index}@example.com`, named: undefined },
      { ...vector, email: `named-${index}@example.com`, named: vector.algorithm.toLowerCase() },
    ]),
  )('$algorithm $description (hashingAlgorithm: $named)', async ({ email, hash, password, named }) => {
    const imported = await importHash(t.app, email, hash, named);
    expect([imported.statusCode, imported.json.status]).toEqual([200, 'OK']);
    const user = { id: imported.json.user.id, email, timeJoined: t.clock.nowMs };

    const right = await signIn(t.app, email.toUpperCase(), password);
    expect([right.statusCode, right.json]).toEqual([200, signedIn(user)]);
    for (const wrong of [
      `${password}x`,
      password.slice(0, -1),
      '',
      password.toUpperCase() === password ? password.toLowerCase() : password.toUpperCase(),
    ]) {
      const reply = await signIn(t.app, email, wrong);
      expect([wrong, reply.statusCode, reply.json]).toEqual([wrong, 200, { status: 'WRONG_CREDENTIALS_ERROR' }]);
    }
  });

  it('accepts firebase_scrypt as the alias of idp_scrypt', async () => {
    const reply = await importHash(t.app, 'alias@example.com', PUBLISHED_SCRYPT_HASH, 'FIREBASE_SCRYPT');
    expect(reply.statusCode).toBe(200);
    expect((await signIn(t.app, 'alias@example.com', 'testPass123')).json.status).toBe('OK');
  });
});

describe('a configured but different signer key', () => {
  const t = useTestApp({ idp_password_hashing_signer_key: Buffer.alloc(64, 7).toString('base64') });

  it('imports the hash but never matches: WRONG_CREDENTIALS_ERROR, not a 500', async () => {
    expect((await importHash(t.app, 'k@example.com', PUBLISHED_SCRYPT_HASH)).statusCode).toBe(200);
    const reply = await signIn(t.app, 'k@example.com', 'testPass123');
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'WRONG_CREDENTIALS_ERROR' }]);
  });
});
