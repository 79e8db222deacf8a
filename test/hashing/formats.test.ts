import { describe, expect, it } from 'vitest';
import { detectFormat, findFormatByName, HASH_FORMATS, HASHING_ALGORITHM_NAMES } from '../../src/hashing/formats.js';
import { ARGON2_VECTORS, BCRYPT_VECTORS, PUBLISHED_SCRYPT_HASH } from './vectors.js';

describe('the format list', () => {
  it('accepts each id and alias once, as hashingAlgorithm values', () => {
    expect(HASHING_ALGORITHM_NAMES).toEqual([
      'ARGON2',
      'BCRYPT',
      'IDP_SCRYPT',
      'FIREBASE_SCRYPT',
      'CRYPT',
      'PHPASS',
      'LDAP',
      'SALTED_DIGEST',
      'HMAC',
      'PBKDF2',
      'SCRYPT',
      'ASPNET_IDENTITY',
      'BCRYPT_SHA256',
      'LAZY',
    ]);
    expect(new Set(HASHING_ALGORITHM_NAMES).size).toBe(HASHING_ALGORITHM_NAMES.length);
  });

  it.each([
    { description: 'lower case', name: 'bcrypt', expected: 'BCRYPT' },
    { description: 'Java-trimmed', name: '\t argon2 \n', expected: 'ARGON2' },
    { description: 'alias', name: 'Firebase_Scrypt', expected: 'IDP_SCRYPT' },
    { description: 'unknown', name: 'md5', expected: undefined },
  ])('findFormatByName: $description', ({ name, expected }) => {
    expect(findFormatByName(name)?.id).toBe(expected);
  });

  it.each([
    { description: 'argon2', hash: ARGON2_VECTORS[0].hash, expected: 'ARGON2' },
    { description: 'bcrypt', hash: BCRYPT_VECTORS[0].hash, expected: 'BCRYPT' },
    { description: 'scrypt variant', hash: PUBLISHED_SCRYPT_HASH, expected: 'IDP_SCRYPT' },
    { description: 'plain text', hash: 'hunter2', expected: undefined },
  ])('detectFormat: $description', ({ hash, expected }) => {
    expect(detectFormat(hash)?.id).toBe(expected);
  });

  it.each([
    { description: 'argon2 m=65536', hash: ARGON2_VECTORS[0].hash.replace(/m=\d+/, 'm=65536'), expected: 65536 * 1024 },
    { description: 'bcrypt', hash: BCRYPT_VECTORS[0].hash, expected: 4168 },
    { description: 'scrypt m=14 r=8', hash: PUBLISHED_SCRYPT_HASH, expected: 128 * 2 ** 14 * 8 + 1024 * 1024 },
  ])('memoryBytes: $description', ({ hash, expected }) => {
    const format = detectFormat(hash)!;
    const parsed = format.parse(hash);
    expect(parsed.ok && format.memoryBytes(parsed.value)).toBe(expected);
  });

  it('only the configurable algorithms write new hashes', () => {
    expect(HASH_FORMATS.filter((format) => format.writer).map((format) => format.id)).toEqual(['ARGON2', 'BCRYPT']);
  });
});
