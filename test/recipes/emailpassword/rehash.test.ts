import { beforeEach, describe, expect, it, vi } from 'vitest';
import { hashSync as nodeRsArgon2Hash } from '@node-rs/argon2';
import { createTestApp, type TestApp, truncateAll, useTestApp } from '../../helper.js';
import { replaceEmailPasswordHash } from '../../../src/users/login-method-repository.js';
import { ARGON2_VECTORS, BCRYPT_VECTORS, PUBLISHED_SCRYPT, PUBLISHED_SCRYPT_HASH, SIGNER_KEY } from '../../hashing/vectors.js';
import { importHash, signIn, signUp, signedIn, storedHash } from './fixtures.js';

const NEW_BCRYPT = /^\$2b\$04\$[./A-Za-z0-9]{53}$/;

// The rewrite runs after the reply, so the test polls the database for it, with a bound.
async function waitForHash(t: TestApp, email: string, pattern: RegExp): Promise<string> {
  await vi.waitFor(async () => expect(await storedHash(t.db, email)).toMatch(pattern), { timeout: 10_000, interval: 20 });
  return (await storedHash(t.db, email))!;
}

function upgradeLogLines(t: TestApp): unknown[] {
  return t.logs.map((line) => JSON.parse(line)).filter((line) => line.msg === 'password hash upgraded to the configured algorithm');
}

describe('password_rehash_on_signin: true', () => {
  const t = useTestApp({ idp_password_hashing_signer_key: SIGNER_KEY, password_rehash_on_signin: true, log_level: 'INFO' });
  beforeEach(async () => {
    await truncateAll(t.db);
    t.logs.length = 0;
  });

  it('rewrites an imported scrypt-variant hash as bcrypt, which keeps working once the signer key is gone', async () => {
    const imported = (await importHash(t.app, 'scrypt@example.com', PUBLISHED_SCRYPT_HASH)).json.user;
    const user = { id: imported.id, email: 'scrypt@example.com', timeJoined: imported.timeJoined };
    const reply = await signIn(t.app, 'scrypt@example.com', PUBLISHED_SCRYPT.password);
    expect(reply.json).toEqual(signedIn(user));

    await waitForHash(t, 'scrypt@example.com', NEW_BCRYPT);
    expect(upgradeLogLines(t)).toEqual([expect.objectContaining({ level: 30, userId: user.id })]);
    expect((await signIn(t.app, 'scrypt@example.com', PUBLISHED_SCRYPT.password)).json).toEqual(signedIn(user));
    expect((await signIn(t.app, 'scrypt@example.com', 'wrong')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });

    const keyless = await createTestApp({ password_rehash_on_signin: true }, t.db);
    try {
      expect((await signIn(keyless.app, 'scrypt@example.com', PUBLISHED_SCRYPT.password)).json).toEqual(signedIn(user));
    } finally {
      await keyless.close();
    }
  });

  it('rewrites argon2 and other-cost bcrypt hashes too', async () => {
    await importHash(t.app, 'argon@example.com', ARGON2_VECTORS[1].hash);
    await importHash(t.app, 'cost5@example.com', BCRYPT_VECTORS[1].hash);
    expect((await signIn(t.app, 'argon@example.com', ARGON2_VECTORS[1].password)).json.status).toBe('OK');
    expect((await signIn(t.app, 'cost5@example.com', BCRYPT_VECTORS[1].password)).json.status).toBe('OK');
    await waitForHash(t, 'argon@example.com', NEW_BCRYPT);
    await waitForHash(t, 'cost5@example.com', NEW_BCRYPT);
    expect((await signIn(t.app, 'argon@example.com', ARGON2_VECTORS[1].password)).json.status).toBe('OK');
  });

  it('leaves current hashes, failed sign-ins and refused hashes alone', async () => {
    await signUp(t.app, 'current@example.com', 'pw');
    await importHash(t.app, 'wrong@example.com', PUBLISHED_SCRYPT_HASH);
    const current = await storedHash(t.db, 'current@example.com');
    expect((await signIn(t.app, 'current@example.com', 'pw')).json.status).toBe('OK');
    expect((await signIn(t.app, 'wrong@example.com', 'not the password')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    await t.app.services.emailPassword.stop();
    expect(await storedHash(t.db, 'current@example.com')).toBe(current);
    expect(await storedHash(t.db, 'wrong@example.com')).toBe(PUBLISHED_SCRYPT_HASH);
    expect(upgradeLogLines(t)).toEqual([]);
  });

  it('keeps an argon2 hash of a password longer than the 72 bytes bcrypt reads, which bcrypt would truncate', async () => {
    const long = `${'ü'.repeat(36)}tail`;
    const hash = nodeRsArgon2Hash(long, { memoryCost: 64, timeCost: 1, parallelism: 1 });
    await importHash(t.app, 'long@example.com', hash);
    expect((await signIn(t.app, 'long@example.com', long)).json.status).toBe('OK');
    await t.app.services.emailPassword.stop();
    expect(await storedHash(t.db, 'long@example.com')).toBe(hash);
    expect((await signIn(t.app, 'long@example.com', `${'ü'.repeat(36)}other`)).json.status).toBe('WRONG_CREDENTIALS_ERROR');
  });

  it('rewrites once when many sign-ins of one user race', async () => {
    await importHash(t.app, 'busy@example.com', PUBLISHED_SCRYPT_HASH);
    const replies = await Promise.all(Array.from({ length: 8 }, () => signIn(t.app, 'busy@example.com', PUBLISHED_SCRYPT.password)));
    expect(replies.map((reply) => reply.json.status)).toEqual(replies.map(() => 'OK'));
    await waitForHash(t, 'busy@example.com', NEW_BCRYPT);
    await t.app.services.emailPassword.stop();
    expect(upgradeLogLines(t)).toHaveLength(1);
  });

  it('never overwrites a hash that changed after it was verified', async () => {
    const { id } = (await importHash(t.app, 'changed@example.com', PUBLISHED_SCRYPT_HASH)).json.user;
    await importHash(t.app, 'changed@example.com', BCRYPT_VECTORS[2].hash);
    expect(await replaceEmailPasswordHash(t.db.pool, id, PUBLISHED_SCRYPT_HASH, BCRYPT_VECTORS[0].hash)).toBe(false);
    expect(await storedHash(t.db, 'changed@example.com')).toBe(BCRYPT_VECTORS[2].hash);
    expect(await replaceEmailPasswordHash(t.db.pool, id, BCRYPT_VECTORS[2].hash, BCRYPT_VECTORS[0].hash)).toBe(true);
  });
});

describe('password_rehash_on_signin with ARGON2 configured', () => {
  const t = useTestApp({
    idp_password_hashing_signer_key: SIGNER_KEY,
    password_rehash_on_signin: true,
    password_hashing_alg: 'ARGON2',
  });

  it('rewrites bcrypt and scrypt-variant hashes as argon2id with the configured parameters', async () => {
    await importHash(t.app, 'b@example.com', BCRYPT_VECTORS[0].hash);
    await importHash(t.app, 's@example.com', PUBLISHED_SCRYPT_HASH);
    expect((await signIn(t.app, 'b@example.com', BCRYPT_VECTORS[0].password)).json.status).toBe('OK');
    expect((await signIn(t.app, 's@example.com', PUBLISHED_SCRYPT.password)).json.status).toBe('OK');
    const argon2 = /^\$argon2id\$v=19\$m=1024,t=1,p=1\$/;
    await waitForHash(t, 'b@example.com', argon2);
    await waitForHash(t, 's@example.com', argon2);
    expect((await signIn(t.app, 's@example.com', PUBLISHED_SCRYPT.password)).json.status).toBe('OK');
  });
});

describe('password_rehash_on_signin: false (the default)', () => {
  const t = useTestApp({ idp_password_hashing_signer_key: SIGNER_KEY });

  it('keeps the imported hash as it is', async () => {
    await importHash(t.app, 'keep@example.com', PUBLISHED_SCRYPT_HASH);
    expect((await signIn(t.app, 'keep@example.com', PUBLISHED_SCRYPT.password)).json.status).toBe('OK');
    await t.app.services.emailPassword.stop();
    expect(await storedHash(t.db, 'keep@example.com')).toBe(PUBLISHED_SCRYPT_HASH);
  });
});
