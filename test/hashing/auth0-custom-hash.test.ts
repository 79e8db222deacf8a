import { describe, expect, it } from 'vitest';
import { convertAuth0CustomHash } from '../../src/hashing/auth0-custom-hash.js';
import { PasswordHasher } from '../../src/hashing/registry.js';
import { LDAP_VECTORS } from './legacy-vectors.js';

const hasher = new PasswordHasher({
  newHashAlgorithm: 'BCRYPT',
  bcryptLogRounds: 4,
  argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
  argon2PoolSize: 1,
  scryptPoolSize: 1,
  bcryptPoolSize: 1,
});

const PASSWORD = 'auth0 pässword';

// Digests made with Python's hashlib / hmac for PASSWORD, e.g. hashlib.sha256((PASSWORD + 'NaCl').encode()).hexdigest().
const CONVERTIBLE = [
  {
    description: 'sha256, hex, utf8 salt as suffix',
    custom: {
      algorithm: 'sha256',
      hash: { value: 'bbbd2ff0d03b4b6e48ab3f3ddb2bcf5b7d87ae5fb3cd4cf8eab9e6bd843e7014', encoding: 'hex' },
      salt: { value: 'NaCl', encoding: 'utf8', position: 'suffix' },
    },
  },
  { description: 'md5, base64, no salt', custom: { algorithm: 'md5', hash: { value: 'PLWz4rog/O66mG9Za+/uxQ==', encoding: 'base64' } } },
  {
    description: 'sha1, base64 salt as prefix',
    custom: {
      algorithm: 'sha1',
      hash: { value: '71ME13hWYmPBTdt5Q6qkzR8s9sA=', encoding: 'base64' },
      salt: { value: 'AQIDBA==', encoding: 'base64', position: 'prefix' },
      password: { encoding: 'utf8' },
    },
  },
  {
    description: 'sha512, salt position defaulting to prefix',
    custom: {
      algorithm: 'SHA512',
      hash: {
        value:
          '7970d94e2eae05320d420f5ff880498be860cffe1a2aac2319f743d2de0917afc0c385e755146ca19233572f28a63e78a55c79baba391afbcb71d5567203773c',
        encoding: 'hex',
      },
      salt: { value: 'salt-' },
    },
  },
  {
    description: 'hmac sha256 with a utf8 key',
    custom: {
      algorithm: 'hmac',
      hash: {
        value: 'f411104e8af48e9746a5ddd804ca430f1b5575edffe161c57b64ea0930c13c60',
        encoding: 'hex',
        digest: 'sha256',
        key: { value: 'secret key', encoding: 'utf8' },
      },
    },
  },
];

describe("Auth0's custom_password_hash", () => {
  it.each(CONVERTIBLE)('$description converts to a string that verifies', async ({ custom }) => {
    const converted = convertAuth0CustomHash(custom);
    if (!('hash' in converted)) throw new Error(converted.problem);
    expect(hasher.checkImport(converted.hash).status).toBe('OK');
    expect(await hasher.verify(PASSWORD, converted.hash)).toBe('MATCH');
    expect(await hasher.verify(`${PASSWORD}!`, converted.hash)).toBe('NO_MATCH');
  });

  it('an ldap hash is taken as it is', async () => {
    const converted = convertAuth0CustomHash({ algorithm: 'ldap', hash: { value: LDAP_VECTORS[0].hash } });
    expect(converted).toEqual({ hash: LDAP_VECTORS[0].hash });
  });

  it.each([
    {
      description: 'md4',
      custom: { algorithm: 'md4', hash: { value: 'ab', encoding: 'hex' } },
      problem: 'custom_password_hash algorithm md4 is not supported',
    },
    {
      description: 'a utf16le password',
      custom: { algorithm: 'md5', hash: { value: 'ab', encoding: 'hex' }, password: { encoding: 'utf16le' } },
      problem: 'custom_password_hash password.encoding utf16le is not supported (only utf8)',
    },
    {
      description: 'bad hex',
      custom: { algorithm: 'md5', hash: { value: 'abc', encoding: 'hex' } },
      problem: 'custom_password_hash hash is not valid hex',
    },
    {
      description: 'hmac with ripemd160',
      custom: { algorithm: 'hmac', hash: { value: 'ab', encoding: 'hex', digest: 'ripemd160', key: { value: 'k' } } },
      problem: 'custom_password_hash hmac digest ripemd160 is not supported',
    },
    {
      description: 'a salt position in the middle',
      custom: { algorithm: 'sha1', hash: { value: 'ab', encoding: 'hex' }, salt: { value: 's', position: 'middle' } },
      problem: 'custom_password_hash salt.position middle is not prefix or suffix',
    },
  ])('refuses $description', ({ custom, problem }) => {
    expect(convertAuth0CustomHash(custom)).toEqual({ problem });
  });
});
