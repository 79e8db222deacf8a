import { describe, expect, it, vi } from 'vitest';
import { call, useTestApp } from '../../helper.js';
import {
  CRYPT_VECTORS,
  HMAC_VECTORS,
  LDAP_VECTORS,
  PHPASS_VECTORS,
  SALTED_DIGEST_VECTORS,
  type SourcedVector,
} from '../../hashing/legacy-vectors.js';
import { expectRejected, IMPORT, importHash, signIn, signedIn, storedHash } from './fixtures.js';

const pick = (vectors: SourcedVector[], ...descriptions: string[]) =>
  descriptions.map((description) => vectors.find((vector) => vector.description === description)!);

const cases = [
  ...pick(CRYPT_VECTORS, 'md5-crypt', 'sha256-crypt, rounds=12345, non-ASCII password', 'sha512-crypt, rounds=3000').map((vector) => ({
    ...vector,
    algorithm: 'crypt',
  })),
  ...pick(PHPASS_VECTORS, 'WordPress $P$B, non-ASCII password', 'Drupal 7 $S$', 'Drupal 6 user moved to 7, U$S$').map((vector) => ({
    ...vector,
    algorithm: 'phpass',
  })),
  ...pick(LDAP_VECTORS, '{SSHA}', '{SSHA512}', '{CRYPT} sha512-crypt').map((vector) => ({ ...vector, algorithm: 'Ldap' })),
  ...pick(SALTED_DIGEST_VECTORS, 'template {SALT}{PASSWORD}, sha256', 'Django sha1$salt$hex').map((vector) => ({
    ...vector,
    algorithm: 'salted_digest',
  })),
  ...pick(HMAC_VECTORS, 'Kratos hex-text form, sha256', 'raw MAC, sha512').map((vector) => ({ ...vector, algorithm: 'HMAC' })),
];

describe('import → sign-in for the legacy formats', () => {
  const t = useTestApp();

  it.each(
    cases.flatMap((vector, index) => [
      { ...vector, email: `detected-${index}@example.com`, named: undefined },
      { ...vector, email: `named-${index}@example.com`, named: vector.algorithm },
    ]),
  )('$description (hashingAlgorithm: $named)', async ({ email, hash, password, named }) => {
    const imported = await importHash(t.app, email, hash, named);
    expect([imported.statusCode, imported.json.status]).toEqual([200, 'OK']);
    expect(await storedHash(t.db, email)).toBe(hash);
    const user = { id: imported.json.user.id, email, timeJoined: t.clock.nowMs };

    const right = await signIn(t.app, email, password);
    expect([right.statusCode, right.json]).toEqual([200, signedIn(user)]);
    for (const wrong of [`${password}x`, password.slice(0, -1), password.toUpperCase()]) {
      const reply = await signIn(t.app, email, wrong);
      expect([wrong, reply.statusCode, reply.json]).toEqual([wrong, 200, { status: 'WRONG_CREDENTIALS_ERROR' }]);
    }
  });

  const GENERIC = 'Password hash is in invalid format';
  it.each([
    {
      description: 'sha512-crypt rounds below the bound, detected',
      body: { passwordHash: '$6$rounds=999$salt$' + 'a'.repeat(86) },
      message: `${GENERIC}: sha512-crypt rounds must be between 1000 and 1000000, got 999`,
    },
    {
      description: 'sha512-crypt rounds above the bound, CRYPT',
      body: { passwordHash: '$6$rounds=1000001$salt$' + 'a'.repeat(86), hashingAlgorithm: 'CRYPT' },
      message: 'Password hash is in invalid crypt format: sha512-crypt rounds must be between 1000 and 1000000, got 1000001',
    },
    {
      description: 'phpass count 2^19, PHPASS',
      body: { passwordHash: '$P$H' + PHPASS_VECTORS[0].hash.slice(4), hashingAlgorithm: 'phpass' },
      message: 'Password hash is in invalid phpass format: phpass $P$ count must be between 2^7 and 2^18 rounds, got 2^19',
    },
    {
      description: '{SSHA} with a 2-byte salt, detected',
      body: { passwordHash: '{SSHA}' + Buffer.alloc(22).toString('base64') },
      message: `${GENERIC}: LDAP {SSHA} salt must be between 4 and 64 bytes after the 20-byte digest, got 2`,
    },
    {
      description: 'salted digest template without {PASSWORD}, SALTED_DIGEST',
      body: { passwordHash: '$sha1$pf=e1NBTFR9$c2FsdA==$' + Buffer.alloc(20).toString('base64'), hashingAlgorithm: 'SALTED_DIGEST' },
      message: 'Password hash is in invalid salted digest format: $sha1$pf= template must contain {PASSWORD}',
    },
    {
      description: 'HMAC with an empty key, detected',
      body: { passwordHash: '$hmac-sha1$' + Buffer.alloc(20).toString('base64') + '$' },
      message: `${GENERIC}: $hmac-sha1$ key must be between 1 and 1024 bytes, got 0`,
    },
    {
      description: 'an md5-crypt hash named PHPASS',
      body: { passwordHash: CRYPT_VECTORS[0].hash, hashingAlgorithm: 'PHPASS' },
      message: 'Password hash is in invalid phpass format: the hash is in the CRYPT format; set hashingAlgorithm to crypt',
    },
    {
      description: 'a phpass hash named LDAP',
      body: { passwordHash: PHPASS_VECTORS[0].hash, hashingAlgorithm: 'ldap' },
      message: 'Password hash is in invalid LDAP format: the hash is in the PHPASS format; set hashingAlgorithm to phpass',
    },
  ])('400 for $description, writing nothing', async ({ body, message }) => {
    await expectRejected(t.db, () => call(t.app, 'POST', IMPORT, { body: { email: 'bad@example.com', ...body } }), 400, message);
  });
});

describe('password_rehash_on_signin moves a weak format to the configured algorithm', () => {
  const t = useTestApp({ password_rehash_on_signin: true });

  it.each([PHPASS_VECTORS[0], LDAP_VECTORS[0], CRYPT_VECTORS[0], SALTED_DIGEST_VECTORS[0], HMAC_VECTORS[0]])(
    '$description',
    async ({ description, hash, password }) => {
      const email = `weak-${description.toLowerCase().replace(/[^a-z0-9]/g, '')}@example.com`;
      const imported = await importHash(t.app, email, hash);
      const user = { id: imported.json.user.id, email, timeJoined: t.clock.nowMs };
      expect((await signIn(t.app, email, password)).json).toEqual(signedIn(user));
      // The rewrite runs after the reply; poll the database with a bound.
      await vi.waitFor(async () => expect(await storedHash(t.db, email)).toMatch(/^\$2b\$04\$/), { timeout: 10_000, interval: 20 });
      expect((await signIn(t.app, email, password)).json).toEqual(signedIn(user));
      expect((await signIn(t.app, email, `${password}x`)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    },
  );
});
