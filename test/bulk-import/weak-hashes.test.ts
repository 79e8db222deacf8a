import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, truncateAll, type TestApp } from '../helper.js';
import { emailPasswordUser, thirdPartyUser } from './fixtures.js';
import { CRYPT_VECTORS, HMAC_VECTORS, PHPASS_VECTORS, SALTED_DIGEST_VECTORS } from '../hashing/legacy-vectors.js';

const md5Crypt = CRYPT_VECTORS[0].hash;
const sha256Crypt = CRYPT_VECTORS[1].hash;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ log_level: 'WARN' });
});
afterAll(() => t.close());
beforeEach(() => truncateAll(t.db));

function warnings(from: number): Record<string, unknown>[] {
  return t.logs
    .slice(from)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'bulk import: users with a password hash in a weak format; turn on password_rehash_on_signin');
}

describe('weak password hashes in the bulk-import answers', () => {
  const users = () => [
    emailPasswordUser(0, {}, { passwordHash: md5Crypt, hashingAlgorithm: 'crypt' }),
    emailPasswordUser(1, {}, { passwordHash: sha256Crypt, hashingAlgorithm: 'crypt' }),
    emailPasswordUser(2, {}, { passwordHash: PHPASS_VECTORS[0].hash, hashingAlgorithm: 'phpass' }),
    emailPasswordUser(3, {}, { passwordHash: SALTED_DIGEST_VECTORS[1].hash, hashingAlgorithm: 'salted_digest' }),
    emailPasswordUser(4, {}, { passwordHash: HMAC_VECTORS[0].hash, hashingAlgorithm: 'hmac' }),
    emailPasswordUser(5),
    thirdPartyUser(6),
  ];

  it('POST /bulk-import/users counts the users with a weak hash, and logs the count per format without a hash', async () => {
    const from = t.logs.length;
    const dry = await call(t.app, 'POST', '/bulk-import/users', { query: { dryRun: 'true' }, body: { users: users() } });
    expect([dry.statusCode, dry.json]).toEqual([200, { status: 'OK', weakHashes: 4 }]);

    const queued = await call(t.app, 'POST', '/bulk-import/users', { body: { users: users() } });
    expect(queued.statusCode).toBe(200);
    expect(queued.json).toEqual({ status: 'OK', users: expect.any(Array), weakHashes: 4 });
    expect(queued.json.users).toHaveLength(7);

    const logged = warnings(from);
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatchObject({ level: 40, weakHashes: 4, formats: { CRYPT: 1, PHPASS: 1, SALTED_DIGEST: 1, HMAC: 1 } });
    const text = t.logs.slice(from).join('');
    for (const hash of [md5Crypt, PHPASS_VECTORS[0].hash, SALTED_DIGEST_VECTORS[1].hash, HMAC_VECTORS[0].hash])
      expect(text).not.toContain(hash);
  });

  it('answers exactly the reference shape when no hash is weak', async () => {
    const from = t.logs.length;
    const strong = [emailPasswordUser(0), emailPasswordUser(1, {}, { passwordHash: sha256Crypt, hashingAlgorithm: 'crypt' })];
    const dry = await call(t.app, 'POST', '/bulk-import/users', { query: { dryRun: 'true' }, body: { users: strong } });
    expect(dry.json).toEqual({ status: 'OK' });
    const imported = await call(t.app, 'POST', '/bulk-import/import', { body: emailPasswordUser(2) });
    expect([imported.statusCode, Object.keys(imported.json)]).toEqual([200, ['status', 'user']]);
    expect(warnings(from)).toEqual([]);
  });

  it('POST /bulk-import/import adds weakHashes: 1 for a user with a weak hash', async () => {
    const from = t.logs.length;
    const user = emailPasswordUser(0, {}, { passwordHash: ` ${md5Crypt} `, hashingAlgorithm: 'crypt' });
    const imported = await call(t.app, 'POST', '/bulk-import/import', { body: user });
    expect([imported.statusCode, imported.json.status, imported.json.weakHashes]).toEqual([200, 'OK', 1]);
    expect(warnings(from)).toMatchObject([{ weakHashes: 1, formats: { CRYPT: 1 } }]);
  });

  it('a refused batch answers its 400 and warns about nothing', async () => {
    const from = t.logs.length;
    const bad = [emailPasswordUser(0, {}, { passwordHash: md5Crypt, hashingAlgorithm: 'crypt' }), { loginMethods: [] }];
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: bad } });
    expect(reply.statusCode).toBe(400);
    expect(reply.json.weakHashes).toBeUndefined();
    expect(warnings(from)).toEqual([]);
  });
});
