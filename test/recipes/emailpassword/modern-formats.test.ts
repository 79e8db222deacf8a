import { describe, expect, it, vi } from 'vitest';
import { call, snapshot, useTestApp } from '../../helper.js';
import { independentVectors } from '../../hashing/independent/modern-vectors.js';
import { expectRejected, IMPORT, importHash, signIn, signedIn, storedHash } from './fixtures.js';

const ASPNET_V3 = 'AQAAAAEAACcQAAAAEAABAgMEBQYHCAkKCwwNDg+yWU7rLgUwPZb1Itsmra7cbxw2EFpwpVFIEtP+JIuUEw==';
const pick = (family: string, algorithm: string, ...descriptions: string[]) =>
  descriptions.map((description) => ({ ...independentVectors(family).find((vector) => vector.description === description)!, algorithm }));

// One published vector and independent ones (python3-passlib, hashlib) per family, through the real HTTP layer.
const cases = [
  {
    description: 'Django pbkdf2_sha256 (published)',
    algorithm: 'pbkdf2',
    password: 'lètmein',
    hash: 'pbkdf2_sha256$390000$seasalt$8xBlGd3jVgvJ+92hWPxi5ww0uuAuAnKgC45eudxro7c=',
  },
  ...pick('PBKDF2', 'PBKDF2', 'passlib pbkdf2_sha512', 'passlib atlassian_pbkdf2_sha1', 'PHC pbkdf2-sha3-256', 'Werkzeug pbkdf2:sha256'),
  {
    description: 'passlib $scrypt$ (published)',
    algorithm: 'Scrypt',
    password: 'test',
    hash: '$scrypt$ln=8,r=8,p=1$wlhLyXmP8b53bm1NKYVQqg$mTpvG8lzuuDk+DWz8HZIB6Vum6erDuUm0As5yU+VxWA',
  },
  ...pick('SCRYPT', 'scrypt', 'Kratos form (ln holds N)', 'Werkzeug scrypt', 'Django scrypt'),
  {
    description: 'ASP.NET Identity v3 (published)',
    algorithm: 'aspnet_identity',
    password: 'my password',
    hash: `$aspnet-identity$${ASPNET_V3}`,
  },
  ...pick('ASPNET_IDENTITY', 'ASPNET_IDENTITY', 'v2 blob').map((vector) => ({ ...vector, hash: `$aspnet-identity$${vector.hash}` })),
  {
    description: 'passlib bcrypt-sha256 v2 (published)',
    algorithm: 'bcrypt_sha256',
    password: 'password',
    hash: '$bcrypt-sha256$v=2,t=2b,r=5$5Hg1DKFqPE8C2aflZ5vVoe$wOK1VFFtS8IGTrGa7.h5fs0u84qyPbS',
  },
  ...pick('BCRYPT_SHA256', 'BCRYPT_SHA256', 'passlib django_bcrypt_sha256', 'passlib bcrypt_sha256 v1'),
];

describe('import → sign-in for PBKDF2, scrypt, ASP.NET Identity and bcrypt-sha256', () => {
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
    expect((await signIn(t.app, email, password)).json).toEqual(signedIn(user));
    for (const wrong of [`${password}x`, password.slice(0, -1)]) {
      expect((await signIn(t.app, email, wrong)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    }
  });

  it('a bare ASP.NET Identity blob named aspnet_identity is stored with its prefix and signs in', async () => {
    const imported = await importHash(t.app, 'blob@example.com', ASPNET_V3, 'ASPNET_IDENTITY');
    expect([imported.statusCode, imported.json.status]).toEqual([200, 'OK']);
    expect(await storedHash(t.db, 'blob@example.com')).toBe(`$aspnet-identity$${ASPNET_V3}`);
    expect((await signIn(t.app, 'blob@example.com', 'my password')).json.status).toBe('OK');
  });

  it('the bulk dry run accepts each family by name and writes nothing', async () => {
    const users = cases.map(({ hash, algorithm }, index) => ({
      loginMethods: [{ recipeId: 'emailpassword', email: `dry-${index}@example.com`, passwordHash: hash, hashingAlgorithm: algorithm }],
    }));
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/users', { query: { dryRun: 'true' }, body: { users } });
    // Under 10,000 PBKDF2 iterations is weak: the passlib sha512, PHC sha3-256 and Werkzeug vectors, and the
    // ASP.NET Identity v2 blob (1,000).
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'OK', weakHashes: 4 }]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('bulk import accepts each family by name and the users sign in', async () => {
    for (const [index, { hash, password, algorithm }] of cases.entries()) {
      const email = `bulk-${index}@example.com`;
      const body = { loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: hash, hashingAlgorithm: algorithm }] };
      const reply = await call(t.app, 'POST', '/bulk-import/import', { body });
      expect([index, reply.statusCode, reply.json?.status]).toEqual([index, 200, 'OK']);
      expect([index, (await signIn(t.app, email, password)).json.status]).toEqual([index, 'OK']);
    }
  });

  it.each([
    {
      description: 'ambiguous PHC sha384',
      body: {
        passwordHash: '$pbkdf2-sha384$i=1000,l=32$c2FsdHNhbHQ$QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI',
        hashingAlgorithm: 'pbkdf2',
      },
      message:
        'Password hash is in invalid PBKDF2 format: $pbkdf2-sha384$ is ambiguous (Kratos means SHA3, others SHA-2): write sha3-384 or use a SHA-2 form',
    },
    {
      description: 'scrypt over the memory bound, detected',
      body: { passwordHash: '$scrypt$ln=20,r=8,p=1$wlhLyXmP8b53bm1NKYVQqg$mTpvG8lzuuDk+DWz8HZIB6Vum6erDuUm0As5yU+VxWA' },
      message:
        'Password hash is in invalid format: 128 · N · r · p = 1048576 KiB is over the limit of 131072 KiB (raise imported_hash_max_memory_kib to accept it)',
    },
    {
      description: 'a bare blob without hashingAlgorithm',
      body: { passwordHash: ASPNET_V3 },
      message: 'Password hash is in invalid format: this looks like an ASP.NET Identity blob: set hashingAlgorithm to aspnet_identity',
    },
  ])('400 for $description, writing nothing', async ({ body, message }) => {
    await expectRejected(t.db, () => call(t.app, 'POST', IMPORT, { body: { email: 'bad@example.com', ...body } }), 400, message);
  });
});

describe('password_rehash_on_signin moves these formats to the configured algorithm', () => {
  const t = useTestApp({ password_rehash_on_signin: true });

  it.each(cases.filter((_, index) => index % 3 === 0))('$description', async ({ hash, password }) => {
    const email = `rehash-${hash.length}-${hash.slice(-6).replace(/[^A-Za-z0-9]/g, '')}@example.com`.toLowerCase();
    const imported = await importHash(t.app, email, hash);
    const user = { id: imported.json.user.id, email, timeJoined: t.clock.nowMs };
    const before = await snapshot(t.db);
    expect((await signIn(t.app, email, password)).json).toEqual(signedIn(user));
    // The rewrite runs after the reply; poll the database with a bound.
    await vi.waitFor(async () => expect(await storedHash(t.db, email)).toMatch(/^\$2b\$04\$[./A-Za-z0-9]{53}$/), {
      timeout: 10_000,
      interval: 20,
    });
    expect(before).not.toEqual(await snapshot(t.db));
    expect((await signIn(t.app, email, password)).json).toEqual(signedIn(user));
    expect((await signIn(t.app, email, `${password}x`)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });
});
