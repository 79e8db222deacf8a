import { describe, expect, it } from 'vitest';
import { decodeStandardBase64, decodeUrlSafeBase64 } from '../../src/recipes/passwordless/strict-base64.js';

const linkCode = '5F-gDG2dqpl_eq4dsP_kRyBN13fCEVVRhlGs8OCm6Q0';
const deviceId = 'AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=';

describe('strict base64 decoding of caller input', () => {
  it.each([
    ['a padded deviceId', deviceId, Buffer.alloc(32, 1)],
    ['the same without padding', deviceId.slice(0, -1), Buffer.alloc(32, 1)],
    ['standard alphabet with + and /', '+/+/', Buffer.from([0xfb, 0xff, 0xbf])],
    ['the empty string', '', Buffer.alloc(0)],
  ])('standard alphabet accepts %s', (_name, text, bytes) => {
    expect(decodeStandardBase64(text)).toEqual(bytes);
  });

  it.each([
    ['a phone number (13 characters)', '+442071838750'],
    ['URL-safe characters', '-_-_'],
    ['a character outside the alphabet', 'AAA#'],
    ['a space', 'AA AA'],
    ['padding in the middle', 'AA=A'],
    ['three padding characters', 'A==='],
    ['padding on a length that needs none', 'AAAA='],
    ['padding that leaves the length not a multiple of 4', 'AAA=='],
    ['length mod 4 = 1', 'AAAAA'],
  ])('standard alphabet rejects %s', (_name, text) => {
    expect(decodeStandardBase64(text)).toBeUndefined();
  });

  it.each([
    ['a linkCode', linkCode],
    ['a linkCode with a trailing =', `${linkCode}=`],
  ])('URL-safe alphabet accepts %s', (_name, text) => {
    expect(decodeUrlSafeBase64(text)?.toString('base64url')).toBe(linkCode);
  });

  it.each([
    ['trailing ##', `${linkCode}##`],
    ['two trailing =', `${linkCode}==`],
    ['standard-alphabet characters', '+/+/'],
    ['length mod 4 = 1', `${linkCode}AA`],
  ])('URL-safe alphabet rejects %s', (_name, text) => {
    expect(decodeUrlSafeBase64(text)).toBeUndefined();
  });
});
