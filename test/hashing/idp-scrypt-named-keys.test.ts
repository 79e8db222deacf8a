import { randomBytes } from 'node:crypto';
import { FirebaseScrypt } from 'firebase-scrypt';
import { describe, expect, it } from 'vitest';
import { parseNamedSignerKeys } from '../../src/config/signer-keys.js';
import { parseIdpScrypt } from '../../src/hashing/idp-scrypt.js';
import { PasswordHasher, type HashingOptions } from '../../src/hashing/registry.js';
import { PUBLISHED_SCRYPT, SIGNER_KEY } from './vectors.js';

// Each Identity Platform tenant signs its hashes with a key of its own: one core verifies the hashes of several
// tenants through idp_password_hashing_signer_keys, each hash naming its key with `$k=<name>`. The hashes are made
// by firebase-scrypt, an implementation independent of the core's.

const ACME_KEY = SIGNER_KEY;
const GLOBEX_KEY = randomBytes(64).toString('base64');
const SEPARATOR = PUBLISHED_SCRYPT.separator;

async function tenantHash(password: string, signerKey: string, keyName: string | undefined, salt = 'c2FsdHlzYWx0eQ=='): Promise<string> {
  const hasher = new FirebaseScrypt({ memCost: 10, rounds: 4, saltSeparator: SEPARATOR, signerKey });
  const hash = `$f_scrypt$${await hasher.hash(password, salt)}$${salt}$m=10$r=4$s=${SEPARATOR}`;
  return keyName === undefined ? hash : `${hash}$k=${keyName}`;
}

const OPTIONS: HashingOptions = {
  namedSignerKeys: `acme:${ACME_KEY}, globex:${GLOBEX_KEY}`,
  newHashAlgorithm: 'BCRYPT',
  bcryptLogRounds: 4,
  argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
  argon2PoolSize: 2,
  scryptPoolSize: 2,
  bcryptPoolSize: 2,
};
const MSG = 'Password hash is in invalid Firebase SCrypt format';

describe('named signer keys ($k=<name>)', () => {
  const hasher = new PasswordHasher(OPTIONS);

  it('verifies two tenants’ hashes, each with its own key, the same password in both', async () => {
    const acme = await tenantHash('hunter2', ACME_KEY, 'acme');
    const globex = await tenantHash('hunter2', GLOBEX_KEY, 'globex');
    expect(acme).not.toBe(globex);
    expect(hasher.checkImport(acme, 'firebase_scrypt')).toEqual({ status: 'OK', hash: acme, algorithm: 'IDP_SCRYPT' });
    expect(hasher.checkImport(globex)).toEqual({ status: 'OK', hash: globex, algorithm: 'IDP_SCRYPT' });
    expect(await hasher.verify('hunter2', acme)).toBe('MATCH');
    expect(await hasher.verify('hunter2', globex)).toBe('MATCH');
    expect(await hasher.verify('hunter3', globex)).toBe('NO_MATCH');
  });

  it('a hash verified with the other tenant’s key never matches', async () => {
    const acmeHashNamedGlobex = await tenantHash('hunter2', ACME_KEY, 'globex');
    expect(await hasher.verify('hunter2', acmeHashNamedGlobex)).toBe('NO_MATCH');
  });

  it('refuses at import a hash naming a key the core does not hold, naming it; sign-in says the key is missing', async () => {
    const initech = await tenantHash('hunter2', ACME_KEY, 'initech');
    expect(hasher.checkImport(initech, 'firebase_scrypt')).toEqual({
      status: 'INVALID',
      stage: 'FORMAT',
      message: `${MSG}: signer key initech is not in idp_password_hashing_signer_keys`,
    });
    expect(await hasher.verify('hunter2', initech)).toBe('SIGNER_KEY_MISSING');
  });

  it('keeps the unnamed key for hashes without $k=, and asks for it when only named keys are set', async () => {
    const unnamed = await tenantHash('hunter2', ACME_KEY, undefined);
    expect(hasher.checkImport(unnamed, 'firebase_scrypt')).toEqual({ status: 'SIGNER_KEY_MISSING' });
    const both = new PasswordHasher({ ...OPTIONS, signerKey: GLOBEX_KEY, namedSignerKeys: `acme:${ACME_KEY}` });
    expect(await both.verify('hunter2', await tenantHash('hunter2', GLOBEX_KEY, undefined))).toBe('MATCH');
    expect(await both.verify('hunter2', await tenantHash('hunter2', ACME_KEY, 'acme'))).toBe('MATCH');
  });

  it('parses k= once, after the other parts, as a name', () => {
    const base = `$f_scrypt$${PUBLISHED_SCRYPT.hash}$${PUBLISHED_SCRYPT.salt}$m=14$r=8$s=Bw==`;
    expect(parseIdpScrypt(`${base}$k=tenant_1-a`)).toMatchObject({ ok: true, value: { keyName: 'tenant_1-a' } });
    expect(parseIdpScrypt(`${base}$k=a.b`)).toEqual({
      ok: false,
      reason: 'k must name a signer key: 1 to 64 of A-Z, a-z, 0-9, _ and -',
      recognised: true,
    });
    expect(parseIdpScrypt(`${base}$k=a$k=b`).ok).toBe(false);
    expect(parseIdpScrypt(`${base}$x=1`).ok).toBe(false);
  });

  it.each([
    ['acme', 'takes <name>:<base64 key>, comma-separated; a name is 1 to 64 of A-Z, a-z, 0-9, _ and -'],
    ['a.b:AAAA', 'takes <name>:<base64 key>, comma-separated; a name is 1 to 64 of A-Z, a-z, 0-9, _ and -'],
    ['acme:AAAA,acme:BBBB', 'names acme twice'],
    ['acme:not base64!', 'has a key for acme that is not valid base64'],
  ])('refuses the setting %j', (value, problem) => {
    expect(parseNamedSignerKeys(value)).toBe(problem);
    expect(() => new PasswordHasher({ ...OPTIONS, namedSignerKeys: value })).toThrow(`'idp_password_hashing_signer_keys' ${problem}`);
  });
});
