import { describe, expect, it } from 'vitest';
import { detectFormat, findFormatByName, isWeakHash } from '../../src/hashing/formats.js';
import { CRYPT_VECTORS, HMAC_VECTORS, LDAP_VECTORS, PHPASS_VECTORS, SALTED_DIGEST_VECTORS } from './legacy-vectors.js';
import { BCRYPT_VECTORS } from './vectors.js';

const FAMILIES = [
  { id: 'CRYPT', vectors: CRYPT_VECTORS },
  { id: 'PHPASS', vectors: PHPASS_VECTORS },
  { id: 'LDAP', vectors: LDAP_VECTORS },
  { id: 'SALTED_DIGEST', vectors: SALTED_DIGEST_VECTORS },
  { id: 'HMAC', vectors: HMAC_VECTORS },
];

describe('legacy formats in the format list', () => {
  it.each(FAMILIES.flatMap(({ id, vectors }) => vectors.map((vector) => ({ id, ...vector }))))(
    '$id is detected from $description',
    ({ id, hash }) => {
      expect(detectFormat(hash)?.id).toBe(id);
    },
  );

  it.each(FAMILIES)('hashingAlgorithm $id is case-insensitive', ({ id }) => {
    expect(findFormatByName(id.toLowerCase())?.id).toBe(id);
  });

  it.each([
    { description: 'md5-crypt', hash: CRYPT_VECTORS[0].hash, weak: true },
    { description: 'sha256-crypt', hash: CRYPT_VECTORS[1].hash, weak: false },
    { description: 'sha512-crypt', hash: CRYPT_VECTORS[2].hash, weak: false },
    { description: 'phpass', hash: PHPASS_VECTORS[0].hash, weak: true },
    { description: 'Drupal 7', hash: PHPASS_VECTORS[1].hash, weak: true },
    { description: '{SSHA}', hash: LDAP_VECTORS[0].hash, weak: true },
    { description: '{CRYPT} md5-crypt', hash: '{CRYPT}' + CRYPT_VECTORS[0].hash, weak: true },
    { description: '{CRYPT} sha512-crypt', hash: '{CRYPT}' + CRYPT_VECTORS[2].hash, weak: false },
    { description: 'salted digest', hash: SALTED_DIGEST_VECTORS[0].hash, weak: true },
    { description: 'HMAC', hash: HMAC_VECTORS[0].hash, weak: true },
    { description: 'bcrypt', hash: BCRYPT_VECTORS[0].hash, weak: false },
    { description: 'an invalid md5-crypt string', hash: '$1$toolongsalt$x', weak: false },
  ])('$description is weak: $weak', ({ hash, weak }) => {
    expect(isWeakHash(hash)).toBe(weak);
  });

  it.each([
    { description: 'sha512-crypt', hash: CRYPT_VECTORS[2].hash, expected: 128 * 1024 },
    { description: '{CRYPT}', hash: '{CRYPT}' + CRYPT_VECTORS[2].hash, expected: 128 * 1024 },
    { description: 'phpass', hash: PHPASS_VECTORS[0].hash, expected: 4 * 1024 },
    { description: 'template {SALT}{PASSWORD} with a 10-byte salt', hash: SALTED_DIGEST_VECTORS[0].hash, expected: 10 + 1024 },
  ])('memoryBytes: $description', ({ hash, expected }) => {
    const format = detectFormat(hash)!;
    const parsed = format.parse(hash);
    expect(parsed.ok && format.memoryBytes(parsed.value)).toBe(expected);
  });
});
