import bcryptjs from 'bcryptjs';
import { hash as argon2Hash } from '@node-rs/argon2';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helper.js';
import { PUBLISHED_SCRYPT_HASH, SIGNER_KEY } from '../hashing/vectors.js';

// Whether an email belongs to an imported user (of any algorithm), a user who signed up here, or nobody, must not
// show in how long a wrong password takes. Costs are those of real exports and of this core's own defaults.
const rounds = Number(process.env.TIMING_ROUNDS ?? 5);

const t = useTestApp({ signin_failure_min_duration_ms: 400, bcrypt_log_rounds: 11, idp_password_hashing_signer_key: SIGNER_KEY });
beforeAll(async () => {
  const imports = {
    'bcrypt@example.com': bcryptjs.hashSync('right', 10),
    'argon2@example.com': await argon2Hash('right', { memoryCost: 19456, timeCost: 2, parallelism: 1 }),
    'scrypt@example.com': PUBLISHED_SCRYPT_HASH,
  };
  for (const [email, passwordHash] of Object.entries(imports)) {
    expect(
      (await t.app.inject({ method: 'POST', url: '/recipe/user/passwordhash/import', payload: { email, passwordHash } })).statusCode,
    ).toBe(200);
  }
  expect(
    (await t.app.inject({ method: 'POST', url: '/recipe/signup', payload: { email: 'native@example.com', password: 'right' } })).statusCode,
  ).toBe(200);
});

const accounts = ['unknown@example.com', 'bcrypt@example.com', 'argon2@example.com', 'scrypt@example.com', 'native@example.com'];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

describe('sign-in timing', () => {
  it('gives unknown emails and wrong passwords of every kind of account the same median time (±20 %)', async () => {
    const times = new Map<string, number[]>(accounts.map((email) => [email, []]));
    for (let round = 0; round < rounds; round++) {
      for (const email of accounts) {
        const started = performance.now();
        const reply = await t.app.inject({ method: 'POST', url: '/recipe/signin', payload: { email, password: `wrong ${round}` } });
        times.get(email)!.push(performance.now() - started);
        expect([reply.statusCode, reply.body]).toEqual([200, '{"status":"WRONG_CREDENTIALS_ERROR"}\n']);
      }
    }
    const medians = Object.fromEntries([...times].map(([email, values]) => [email, Math.round(median(values))]));
    const values = Object.values(medians);
    expect(Math.max(...values) / Math.min(...values), JSON.stringify(medians)).toBeLessThanOrEqual(1.2);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(400);
  }, 60_000);
});
