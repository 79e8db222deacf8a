import { describe, expect, it } from 'vitest';
import { call, useTestApp } from '../../helper.js';
import { ARGON2_VECTORS, BCRYPT_VECTORS, PUBLISHED_SCRYPT_HASH, SIGNER_KEY } from '../../hashing/vectors.js';
import { USER, expectRejected, importHash, signIn, signUp, storedHash } from './fixtures.js';

// Hashes whose parameters would make one sign-in allocate gigabytes or run for minutes.
const SCRYPT_PARAMS = PUBLISHED_SCRYPT_HASH.slice(0, PUBLISHED_SCRYPT_HASH.indexOf('$m='));
const argon2With = (params: string) => ARGON2_VECTORS[0].hash.replace(/m=\d+,t=\d+,p=\d+/, params);
const HOSTILE = [
  {
    description: 'argon2 m over 4 GiB',
    hash: argon2With('m=4194305,t=1,p=1'),
    algorithm: 'ARGON2',
    reason: 'memory must be at most 4194304 KiB',
  },
  {
    description: 'argon2 t over 1024',
    hash: argon2With('m=64,t=1025,p=1'),
    algorithm: 'ARGON2',
    reason: 'iterations must be at most 1024',
  },
  {
    description: 'argon2 p over 255',
    hash: argon2With('m=4096,t=1,p=256'),
    algorithm: 'ARGON2',
    reason: 'parallelism must be at most 255',
  },
  {
    description: 'scrypt m=21',
    hash: `${SCRYPT_PARAMS}$m=21$r=8$s=Bw==`,
    algorithm: 'IDP_SCRYPT',
    reason: 'mem_cost must be between 1 and 20',
  },
  {
    description: 'scrypt r=33',
    hash: `${SCRYPT_PARAMS}$m=14$r=33$s=Bw==`,
    algorithm: 'IDP_SCRYPT',
    reason: 'rounds must be between 1 and 32',
  },
  {
    description: 'scrypt over 1 GiB',
    hash: `${SCRYPT_PARAMS}$m=19$r=17$s=Bw==`,
    algorithm: 'IDP_SCRYPT',
    reason: '128 * 2^mem_cost * rounds must not exceed 1 GiB',
  },
  {
    description: 'bcrypt cost 32',
    hash: `$2b$32${BCRYPT_VECTORS[0].hash.slice(6)}`,
    algorithm: 'BCRYPT',
    reason: 'cost must be between 04 and 31',
  },
];
const FORMAT_MESSAGES: Record<string, string> = {
  ARGON2: 'Password hash is in invalid Argon2 format',
  IDP_SCRYPT: 'Password hash is in invalid Firebase SCrypt format',
  BCRYPT: 'Password hash is in invalid BCrypt format',
};

describe('hostile hashes', () => {
  const t = useTestApp({ idp_password_hashing_signer_key: SIGNER_KEY }, { truncateEach: true });

  it.each(HOSTILE)('import refuses $description with the message and the reason, storing nothing', async ({ hash, algorithm, reason }) => {
    await expectRejected(t.db, () => importHash(t.app, 'h@example.com', hash), 400, `Password hash is in invalid format: ${reason}`);
    await expectRejected(t.db, () => importHash(t.app, 'h@example.com', hash, algorithm), 400, `${FORMAT_MESSAGES[algorithm]}: ${reason}`);
  });

  it.each(HOSTILE)('$description cannot replace the hash of an existing user through import', async ({ hash, reason }) => {
    await importHash(t.app, 'h@example.com', BCRYPT_VECTORS[0].hash);
    await expectRejected(t.db, () => importHash(t.app, 'H@example.com', hash), 400, `Password hash is in invalid format: ${reason}`);
    expect(await storedHash(t.db, 'h@example.com')).toBe(BCRYPT_VECTORS[0].hash);
  });

  it.each(HOSTILE)('$description sent as a password to sign-up or PUT is hashed, never stored as given', async ({ hash }) => {
    const user = (await signUp(t.app, 'h@example.com', hash)).json.user;
    const afterSignUp = await storedHash(t.db, 'h@example.com');
    expect(afterSignUp).toMatch(/^\$2b\$04\$[./A-Za-z0-9]{53}$/);
    expect((await call(t.app, 'PUT', USER, { body: { recipeUserId: user.id, password: hash } })).json).toEqual({ status: 'OK' });
    const afterPut = await storedHash(t.db, 'h@example.com');
    expect(afterPut).toMatch(/^\$2b\$04\$[./A-Za-z0-9]{53}$/);
    expect(afterPut).not.toBe(afterSignUp);
    expect((await signIn(t.app, 'h@example.com', hash)).json.status).toBe('OK');
  });

  it('refuses at once a hostile hash written to the database by other means', async () => {
    for (const [index, { hash }] of HOSTILE.entries()) {
      await t.db.pool.query(
        `INSERT INTO users (user_id, recipe_id, time_joined, email, password_hash) VALUES ($1, 'emailpassword', 1, $2, $3)`,
        [`planted-${index}`, `planted-${index}@example.com`, hash],
      );
    }
    const computed = async () => {
      const metrics = (await call(t.app, 'GET', '/metrics')).body;
      return metrics
        .split('\n')
        .filter((line) => /^identity_core_password_verifications_total\{algorithm="(argon2|idp_scrypt)"/.test(line));
    };
    const before = await computed();
    for (const index of HOSTILE.keys()) {
      expect((await signIn(t.app, `planted-${index}@example.com`, 'password')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    }
    // Each refusal costs a decoy bcrypt at cost 4, never an argon2 or scrypt run with the planted parameters.
    expect(await computed()).toEqual(before);
  });
});
