import { describe, expect, it } from 'vitest';
import { decodeBase32, decodeBase32Loose, encodeBase32 } from '../src/base32.js';

// RFC 4648 §10 test vectors.
const rfc4648 = [
  ['', ''],
  ['f', 'MY======'],
  ['fo', 'MZXQ===='],
  ['foo', 'MZXW6==='],
  ['foob', 'MZXW6YQ='],
  ['fooba', 'MZXW6YTB'],
  ['foobar', 'MZXW6YTBOI======'],
] as const;

describe('base32 (RFC 4648 §6)', () => {
  it.each(rfc4648)('%j ⇔ %s', (plain, encoded) => {
    expect(encodeBase32(Buffer.from(plain), { padding: true })).toBe(encoded);
    expect(encodeBase32(Buffer.from(plain), { padding: false })).toBe(encoded.replace(/=+$/, ''));
    expect(decodeBase32(encoded)?.toString()).toBe(plain);
    expect(decodeBase32(encoded.replace(/=+$/, ''))?.toString()).toBe(plain);
  });

  it.each([
    ['lower case', 'mzxw6ytb'],
    ['a character outside the alphabet (1)', 'MZXW6YT1'],
    ['wrong padding count', 'MZXW6=='],
    ['padding in the middle', 'MZ=W6YTB'],
    ['an impossible length (3 characters)', 'MZX'],
    ['unused bits set', 'MZXW6YR='],
  ])('the strict decoder refuses %s', (_name, text) => {
    expect(decodeBase32(text)).toBeUndefined();
  });

  it('the loose decoder drops leftover bits whatever their value, as authenticator apps do', () => {
    expect(decodeBase32Loose('MZXW6YR')?.toString()).toBe('foob');
    expect(decodeBase32Loose('MZX')?.toString()).toBe('f');
    expect(decodeBase32Loose('MZXW6YT1')).toBeUndefined();
    expect(decodeBase32Loose('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ')?.toString()).toBe('12345678901234567890');
  });
});
