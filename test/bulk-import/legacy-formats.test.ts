import { describe, expect, it, vi } from 'vitest';
import { call, snapshot, useTestApp } from '../helper.js';
import { emailPasswordUser, queueRows } from './fixtures.js';
import { CRYPT_VECTORS, HMAC_VECTORS, LDAP_VECTORS, PHPASS_VECTORS, SALTED_DIGEST_VECTORS } from '../hashing/legacy-vectors.js';
import { signIn } from '../recipes/emailpassword/fixtures.js';

const invalidUsers = 'Data has missing or invalid fields. Please check the users field for more details.';

const cases = [
  { algorithm: 'crypt', vector: CRYPT_VECTORS[2] },
  { algorithm: 'CRYPT', vector: CRYPT_VECTORS[0] },
  { algorithm: 'phpass', vector: PHPASS_VECTORS[1] },
  { algorithm: 'ldap', vector: LDAP_VECTORS[0] },
  { algorithm: 'salted_digest', vector: SALTED_DIGEST_VECTORS[1] },
  { algorithm: 'hmac', vector: HMAC_VECTORS[0] },
];
const usersOf = () =>
  cases.map(({ algorithm, vector }, n) => emailPasswordUser(n, {}, { passwordHash: vector.hash, hashingAlgorithm: algorithm }));

const t = useTestApp({}, { truncateEach: true });

describe('bulk import of the legacy formats', () => {
  it('a dry run accepts every family and writes nothing', async () => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/users', { query: { dryRun: 'true' }, body: { users: usersOf() } });
    // All but sha512-crypt are fast to guess: md5-crypt, phpass, LDAP {SSHA}, the salted digest and HMAC.
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'OK', weakHashes: 5 }]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('a dry run names the format, parameter and limit of each refused hash', async () => {
    const users = [
      emailPasswordUser(0, {}, { passwordHash: '$6$rounds=999$salt$' + 'a'.repeat(86), hashingAlgorithm: 'crypt' }),
      emailPasswordUser(1, {}, { passwordHash: '$P$H' + PHPASS_VECTORS[0].hash.slice(4), hashingAlgorithm: 'phpass' }),
      emailPasswordUser(2, {}, { passwordHash: '{SSHA}' + Buffer.alloc(22).toString('base64'), hashingAlgorithm: 'ldap' }),
      emailPasswordUser(3, {}, { passwordHash: 'md5$salt$abc', hashingAlgorithm: 'salted_digest' }),
      emailPasswordUser(4, {}, { passwordHash: '$hmac-md4$AAAA$AAAA', hashingAlgorithm: 'hmac' }),
    ];
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/users', { query: { dryRun: 'true' }, body: { users } });
    expect([reply.statusCode, reply.json]).toEqual([
      400,
      {
        error: invalidUsers,
        users: [
          {
            index: 0,
            errors: ['Password hash is in invalid crypt format: sha512-crypt rounds must be between 1000 and 1000000, got 999'],
          },
          {
            index: 1,
            errors: ['Password hash is in invalid phpass format: phpass $P$ count must be between 2^7 and 2^18 rounds, got 2^19'],
          },
          {
            index: 2,
            errors: [
              'Password hash is in invalid LDAP format: LDAP {SSHA} salt must be between 4 and 64 bytes after the 20-byte digest, got 2',
            ],
          },
          { index: 3, errors: ['Password hash is in invalid salted digest format: md5$ digest must be lower-case hex'] },
          {
            index: 4,
            errors: [
              'Password hash is in invalid HMAC format: HMAC must be $hmac-<md5|sha1|sha224|sha256|sha384|sha512>$<base64 MAC>$<base64 key>',
            ],
          },
        ],
      },
    ]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('queued users of every family are imported by the worker and sign in with their old passwords', async () => {
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: usersOf() } });
    expect(reply.statusCode).toBe(200);
    await vi.waitFor(async () => expect(await queueRows(t.db)).toEqual([]), { timeout: 20_000, interval: 50 });
    for (const [n, { vector }] of cases.entries()) {
      const { rows } = await t.db.pool.query('SELECT password_hash FROM users WHERE email = $1', [`user${n}@example.com`]);
      expect(rows).toEqual([{ password_hash: vector.hash }]);
      expect((await signIn(t.app, `user${n}@example.com`, vector.password)).json.status).toBe('OK');
      expect((await signIn(t.app, `user${n}@example.com`, `${vector.password}!`)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    }
  });
});
