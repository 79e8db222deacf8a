import { describe, expect, it, vi } from 'vitest';
import { call, useTestApp } from '../../helper.js';
import {
  ARGON2_VECTORS,
  BCRYPT_VECTORS,
  NON_ASCII_PASSWORD,
  PUBLISHED_SCRYPT,
  PUBLISHED_SCRYPT_HASH,
  SIGNER_KEY,
} from '../../hashing/vectors.js';
import { USER, importHash, signIn, signUp, storedHash } from './fixtures.js';

describe('secrets never reach the log, even at DEBUG', () => {
  const t = useTestApp({ idp_password_hashing_signer_key: SIGNER_KEY, log_level: 'DEBUG', password_rehash_on_signin: true });
  const keyless = useTestApp({ log_level: 'DEBUG' }, { sharing: t });

  it('logs no password, hash or signer key through import, sign-in, sign-up, PUT, rehash and their errors', async () => {
    const secrets = [
      SIGNER_KEY,
      PUBLISHED_SCRYPT.password,
      PUBLISHED_SCRYPT_HASH,
      PUBLISHED_SCRYPT.hash,
      PUBLISHED_SCRYPT.salt,
      NON_ASCII_PASSWORD,
    ];
    const bcrypt = BCRYPT_VECTORS[0];
    const argon2 = ARGON2_VECTORS[0];
    for (const { password, hash } of [bcrypt, argon2]) secrets.push(password, hash, hash.slice(-31));

    expect((await importHash(t.app, 'scrypt@example.com', PUBLISHED_SCRYPT_HASH, 'idp_scrypt')).statusCode).toBe(200);
    expect((await importHash(t.app, 'bcrypt@example.com', bcrypt.hash)).statusCode).toBe(200);
    expect((await importHash(t.app, 'argon2@example.com', argon2.hash)).statusCode).toBe(200);
    const truncated = `${bcrypt.hash.slice(0, 40)}`;
    secrets.push(truncated);
    expect((await importHash(t.app, 'bad@example.com', truncated)).statusCode).toBe(400);

    // The scrypt user is only signed in by the keyless app, so its hash stays for the 500 below.
    expect((await signIn(t.app, 'bcrypt@example.com', bcrypt.password)).json.status).toBe('OK');
    expect((await signIn(t.app, 'argon2@example.com', argon2.password)).json.status).toBe('OK');
    expect((await signIn(t.app, 'argon2@example.com', 'wrong-password-secret')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    expect((await signIn(t.app, 'nobody@example.com', 'unknown-user-secret')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    expect((await signIn(keyless.app, 'scrypt@example.com', PUBLISHED_SCRYPT.password)).statusCode).toBe(500);
    secrets.push('wrong-password-secret', 'unknown-user-secret');

    const planted = '$argon2id$v=19$m=64,t=1,p=1$planted-not-base64';
    secrets.push(planted, 'planted-not-base64');
    await t.db.pool.query(
      `INSERT INTO users (user_id, recipe_id, time_joined, email, password_hash) VALUES ('planted', 'emailpassword', 1, 'planted@example.com', $1)`,
      [planted],
    );
    expect((await signIn(t.app, 'planted@example.com', 'planted-password-secret')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    secrets.push('planted-password-secret');

    const user = (await signUp(t.app, 'new@example.com', NON_ASCII_PASSWORD)).json.user;
    expect((await signIn(t.app, 'new@example.com', NON_ASCII_PASSWORD)).json.status).toBe('OK');
    expect((await call(t.app, 'PUT', USER, { body: { recipeUserId: user.id, password: 'changed-password-secret' } })).json.status).toBe(
      'OK',
    );
    secrets.push('changed-password-secret', (await storedHash(t.db, 'new@example.com'))!);

    await vi.waitFor(async () => expect(await storedHash(t.db, 'argon2@example.com')).toMatch(/^\$2b\$/), {
      timeout: 10_000,
      interval: 20,
    });
    await t.app.services.emailPassword.stop();
    secrets.push((await storedHash(t.db, 'argon2@example.com'))!, (await storedHash(t.db, 'bcrypt@example.com'))!);

    const logs = t.logs.join('') + keyless.logs.join('');
    expect(logs).toContain('incoming request');
    expect(logs).toContain('SIGNER_KEY_MISSING');
    expect(logs).toContain('stored password hash does not parse');
    expect(logs).toContain('password hash upgraded');
    for (const secret of secrets) expect(logs, `a secret leaked: ${secret.slice(0, 12)}…`).not.toContain(secret);
  });
});
