import { describe, expect, it } from 'vitest';
import {
  decodeEitherBase64,
  decodePaddedCanonicalBase64,
  decodeStandardBase64,
  decodeUnpaddedCanonicalBase64,
  decodeUrlSafeBase64,
  isPaddedCanonicalBase64,
} from '../src/base64.js';

describe('decodeEitherBase64 (either alphabet)', () => {
  it.each([
    { description: 'empty', text: '', hex: '' },
    { description: 'padded, two =', text: 'Bw==', hex: '07' },
    { description: 'unpadded, two missing', text: 'Bw', hex: '07' },
    { description: 'padded, one =', text: '/cj0jC1br5o4+w==', hex: 'fdc8f48c2d5baf9a38fb' },
    { description: 'standard alphabet', text: '+/+/', hex: 'fbffbf' },
    { description: 'URL-safe alphabet', text: '-_-_', hex: 'fbffbf' },
    { description: 'URL-safe, unpadded', text: '_cj0jC1br5o4-w', hex: 'fdc8f48c2d5baf9a38fb' },
  ])('accepts $description', ({ text, hex }) => {
    expect(decodeEitherBase64(text)?.toString('hex')).toBe(hex);
  });

  it.each([
    { description: 'mixed alphabets', text: '+_AA' },
    { description: 'impossible length', text: 'ABCDE' },
    { description: 'too much padding', text: 'Bw===' },
    { description: 'padding where none is due', text: 'AAAA=' },
    { description: 'one = where two are due', text: 'Bw=' },
    { description: 'padding in the middle', text: 'Bw==Bw==' },
    { description: 'whitespace', text: 'Bw ==' },
    { description: 'newline', text: 'AAAA\nAAAA' },
    { description: 'stray character', text: 'AA*A' },
  ])('rejects $description', ({ text }) => {
    expect(decodeEitherBase64(text)).toBeUndefined();
  });
});

describe('decodeUnpaddedCanonicalBase64 (PHC)', () => {
  it.each([
    { text: 'c29tZXNhbHQ', expected: 'somesalt' },
    { text: '', expected: '' },
  ])('accepts "$text"', ({ text, expected }) => {
    expect(decodeUnpaddedCanonicalBase64(text)?.toString()).toBe(expected);
  });

  it.each(['c29tZXNhbHQ=', 'c29tZXNhbH_', 'c29tZ', 'c29t ZXNh'])('rejects "%s"', (text) => {
    expect(decodeUnpaddedCanonicalBase64(text)).toBeUndefined();
  });
});

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

describe('decodePaddedCanonicalBase64 (as an encoder writes it)', () => {
  it.each([
    { description: 'padded, two =', text: 'Bw==', hex: '07' },
    { description: 'no padding needed', text: '+/+/', hex: 'fbffbf' },
    { description: 'empty', text: '', hex: '' },
  ])('decodes $description', ({ text, hex }) => {
    expect(decodePaddedCanonicalBase64(text)?.toString('hex')).toBe(hex);
  });

  it.each([
    { description: 'padding left out', text: 'Bw' },
    { description: 'unused bits set', text: 'Bx==' },
    { description: 'URL-safe alphabet', text: '-_-_' },
    { description: 'a character outside the alphabet', text: 'Bw=!' },
  ])('refuses $description', ({ text }) => {
    expect(decodePaddedCanonicalBase64(text)).toBeUndefined();
  });
});

describe('isPaddedCanonicalBase64 (unchanged by decoding and encoding again)', () => {
  it.each(['Bw==', 'QUI=', '+/+/', 'egd/+J4dAewwSKwOS8ZTxdIO/h3ObKi/o5CmqbY8ZUiujAwITN8UN7fSq9WLRpVhM+/g1jyctcHuc5j92uDLVQ=='])(
    'takes %s as it is',
    (text) => {
      expect(isPaddedCanonicalBase64(text)).toBe(true);
      expect(decodeEitherBase64(text)?.toString('base64')).toBe(text);
    },
  );

  it.each(['', 'Bw', 'Bx==', 'QUJ=', '-_-_', 'Bw=!', '====', 'Q===', 'QQ='])('does not take %j', (text) => {
    expect(isPaddedCanonicalBase64(text)).toBe(false);
  });
});
