import { describe, expect, it } from 'vitest';
import bcryptjs from 'bcryptjs';
import { hashSync as argon2Hash } from '@node-rs/argon2';
import { call, useTestApp } from '../helper.js';

// A whole migration, cutover and failure tour at DEBUG level: not one log line may carry a password, a hash, a
// link code, a user input code, a device id, the API key or the signer key, in any encoding a log could use.
const apiKey = 'logs-api-key-secret-0123456789';
const signerKey = 'gRhC3eDeQOdyEn4bMd9c6kxguWVmcIVq/SKa0JDPFeM6TcEevkaW56sIWfx88OHbJKnCXdWscZx0l2WbCJ1wbg==';
const scryptDigest = 'qZM035es5AXYqavsKD6/rhtxg7t5PhcyRgv5blc3doYbChX8keMfQLq1ra96O2Pf2TP/eZrR5xtPCYN6mX3ESA==';
const scryptHash = `$f_scrypt$${scryptDigest}$/cj0jC1br5o4+w==$m=14$r=8$s=Bw==`;

describe('no secret in the logs', () => {
  const secrets = new Set<string>([apiKey, signerKey, scryptHash, scryptDigest]);
  const remember = (...values: string[]) => values.forEach((value) => secrets.add(value));
  const send = async (
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    body?: unknown,
    headers: Record<string, string> = { 'api-key': apiKey },
  ) => {
    const reply = await call(t.app, method, url, { body, headers });
    return reply;
  };

  const t = useTestApp({ log_level: 'DEBUG', api_keys: apiKey, idp_password_hashing_signer_key: signerKey });

  it('runs every flow at DEBUG level', async () => {
    // Passwordless: create with a chosen code, resend, list by device, wrong tries, bad encodings, consume both ways.
    const created = (await send('POST', '/recipe/signinup/code', { email: 'pl@example.com', userInputCode: 'chosen-secret-code' })).json;
    remember(created.deviceId, created.linkCode, 'chosen-secret-code');
    const resent = (await send('POST', '/recipe/signinup/code', { deviceId: created.deviceId })).json;
    remember(resent.linkCode, resent.userInputCode);
    expect((await send('GET', `/recipe/signinup/codes?deviceId=${encodeURIComponent(created.deviceId)}`)).json.devices).toHaveLength(1);
    expect(
      (
        await send('POST', '/recipe/signinup/code/check', {
          preAuthSessionId: created.preAuthSessionId,
          deviceId: created.deviceId,
          userInputCode: 'wrong-secret-guess',
        })
      ).json.status,
    ).toBe('INCORRECT_USER_INPUT_CODE_ERROR');
    remember('wrong-secret-guess');
    expect(
      (
        await send('POST', '/recipe/signinup/code/consume', {
          preAuthSessionId: created.preAuthSessionId,
          linkCode: `${created.linkCode}##`,
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (
        await send('POST', '/recipe/signinup/code/consume', {
          preAuthSessionId: 'other',
          deviceId: created.deviceId,
          userInputCode: resent.userInputCode,
        })
      ).statusCode,
    ).toBe(400);
    const consumed = (
      await send('POST', '/recipe/signinup/code/consume', {
        preAuthSessionId: created.preAuthSessionId,
        deviceId: created.deviceId,
        userInputCode: 'chosen-secret-code',
      })
    ).json;
    expect(consumed.status).toBe('OK');
    const phone = (await send('POST', '/recipe/signinup/code', { phoneNumber: '+14155552671' })).json;
    remember(phone.deviceId, phone.linkCode, phone.userInputCode);
    expect(
      (await send('POST', '/recipe/signinup/code/consume', { preAuthSessionId: phone.preAuthSessionId, linkCode: phone.linkCode })).json
        .status,
    ).toBe('OK');
    expect(
      (
        await send(
          'PUT',
          '/recipe/user',
          { recipeUserId: consumed.user.id, phoneNumber: '+442071838751' },
          { 'api-key': apiKey, rid: 'passwordless' },
        )
      ).json.status,
    ).toBe('OK');

    // Email-password: import every format, sign in right and wrong, sign up, change a password, bad hashes.
    const bcryptHash = bcryptjs.hashSync('bcrypt-secret-password', 4);
    const argonHash = argon2Hash('argon-secret-password', { memoryCost: 256, timeCost: 1, parallelism: 1 });
    remember(
      bcryptHash,
      argonHash,
      'bcrypt-secret-password',
      'argon-secret-password',
      'testPass123',
      'signup-secret-password',
      'changed-secret-password',
    );
    remember(bcryptHash.slice(7), argonHash.split('$').pop()!);
    const imports: [string, string, string, string?][] = [
      ['b@example.com', bcryptHash, 'bcrypt-secret-password'],
      ['a@example.com', argonHash, 'argon-secret-password', 'argon2'],
      ['s@example.com', scryptHash, 'testPass123', 'idp_scrypt'],
    ];
    for (const [email, passwordHash, password, hashingAlgorithm] of imports) {
      expect((await send('POST', '/recipe/user/passwordhash/import', { email, passwordHash, hashingAlgorithm })).json.status).toBe('OK');
      expect((await send('POST', '/recipe/signin', { email, password })).json.status).toBe('OK');
      expect((await send('POST', '/recipe/signin', { email, password: `${password}-wrong` })).json.status).toBe('WRONG_CREDENTIALS_ERROR');
      remember(`${password}-wrong`);
    }
    const truncated = bcryptHash.slice(0, 40);
    remember(truncated);
    expect((await send('POST', '/recipe/user/passwordhash/import', { email: 'x@example.com', passwordHash: truncated })).statusCode).toBe(
      400,
    );
    expect(
      (
        await send('POST', '/recipe/user/passwordhash/import', {
          email: 'x@example.com',
          passwordHash: truncated,
          hashingAlgorithm: 'BCRYPT',
        })
      ).statusCode,
    ).toBe(400);
    const signedUp = (await send('POST', '/recipe/signup', { email: 'up@example.com', password: 'signup-secret-password' })).json;
    expect((await send('PUT', '/recipe/user', { recipeUserId: signedUp.user.id, password: 'changed-secret-password' })).json.status).toBe(
      'OK',
    );
    expect((await send('POST', '/recipe/signin', { email: 'up@example.com', password: 'changed-secret-password' })).json.status).toBe('OK');
    expect((await send('POST', '/recipe/signin', { email: 'nobody@example.com', password: 'changed-secret-password' })).json.status).toBe(
      'WRONG_CREDENTIALS_ERROR',
    );
    // A database failure with a hash in the failing row: the error log must not print the row.
    const longEmail = `${'l'.repeat(300)}@example.com`;
    expect((await send('POST', '/recipe/user/passwordhash/import', { email: longEmail, passwordHash: bcryptHash })).statusCode).not.toBe(
      200,
    );

    // Third party, mappings, users.
    const tp = (
      await send('POST', '/recipe/signinup', {
        thirdPartyId: 'google',
        thirdPartyUserId: 'g-1',
        email: { id: 'tp@example.com', isVerified: true },
      })
    ).json;
    expect((await send('POST', '/recipe/userid/map', { superTokensUserId: tp.user.id, externalUserId: 'legacy-1' })).json.status).toBe(
      'OK',
    );
    expect((await send('GET', '/recipe/userid/map?userId=legacy-1')).json.status).toBe('OK');
    expect((await send('GET', '/users?limit=10')).json.users).toHaveLength(7);

    // Bulk import: hashes and plain-text passwords through the queue and the synchronous route.
    remember('bulk-plain-secret', 'sync-plain-secret');
    const queued = await send('POST', '/bulk-import/users', {
      users: [
        {
          externalUserId: 'bulk-1',
          loginMethods: [{ recipeId: 'emailpassword', email: 'q1@example.com', passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' }],
        },
        { loginMethods: [{ recipeId: 'emailpassword', email: 'q2@example.com', plainTextPassword: 'bulk-plain-secret' }] },
        {
          loginMethods: [{ recipeId: 'emailpassword', email: 'q3@example.com', passwordHash: scryptHash, hashingAlgorithm: 'idp_scrypt' }],
        },
        { loginMethods: [{ recipeId: 'emailpassword', email: 'b@example.com', passwordHash: argonHash, hashingAlgorithm: 'argon2' }] },
      ],
    });
    expect(queued.json.status).toBe('OK');
    await t.app.services.bulkImportWorker.processUntilEmpty();
    expect((await send('GET', '/bulk-import/users?status=FAILED')).json.users).toHaveLength(1);
    expect(
      (
        await send('POST', '/bulk-import/import', {
          loginMethods: [{ recipeId: 'emailpassword', email: 'sync@example.com', plainTextPassword: 'sync-plain-secret' }],
        })
      ).json.status,
    ).toBe('OK');
    expect(
      (
        await send('POST', '/bulk-import/import', {
          loginMethods: [{ recipeId: 'emailpassword', email: 'q1@example.com', passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' }],
        })
      ).statusCode,
    ).toBe(400);
    expect((await send('POST', '/recipe/signin', { email: 'q2@example.com', password: 'bulk-plain-secret' })).json.status).toBe('OK');

    // Transport failures: wrong keys, a key in Authorization, a body that is not JSON.
    remember('wrong-api-key-secret-value');
    expect((await send('GET', '/users/count', undefined, { 'api-key': 'wrong-api-key-secret-value' })).statusCode).toBe(401);
    expect((await send('GET', '/users/count', undefined, { authorization: `Bearer ${apiKey}` })).statusCode).toBe(200);
    expect((await send('POST', '/recipe/signin', `{"email":"b@example.com","password":"bcrypt-secret-password"`)).statusCode).toBe(400);
  });

  it('logged requests and outcomes, and none of the secrets', () => {
    const text = t.logs.join('');
    expect(t.logs.length).toBeGreaterThan(50);
    expect(text).toContain('incoming request');
    const leaked = [...secrets].filter((secret) =>
      [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)].some((form) => text.includes(form)),
    );
    const lines = t.logs.filter((line) => leaked.some((secret) => line.includes(secret)));
    expect(leaked, lines.join('\n').slice(0, 5000)).toEqual([]);
  });
});
