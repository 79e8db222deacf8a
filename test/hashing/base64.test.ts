import { describe, expect, it } from 'vitest';
import { decodeBase64, decodeUnpaddedBase64 } from '../../src/hashing/base64.js';

describe('decodeBase64 (either alphabet)', () => {
  it.each([
    { description: 'empty', text: '', hex: '' },
    { description: 'padded, two =', text: 'Bw==', hex: '07' },
    { description: 'unpadded, two missing', text: 'Bw', hex: '07' },
    { description: 'padded, one =', text: '/cj0jC1br5o4+w==', hex: 'fdc8f48c2d5baf9a38fb' },
    { description: 'standard alphabet', text: '+/+/', hex: 'fbffbf' },
    { description: 'URL-safe alphabet', text: '-_-_', hex: 'fbffbf' },
    { description: 'URL-safe, unpadded', text: '_cj0jC1br5o4-w', hex: 'fdc8f48c2d5baf9a38fb' },
  ])('accepts $description', ({ text, hex }) => {
    expect(decodeBase64(text)?.toString('hex')).toBe(hex);
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
    expect(decodeBase64(text)).toBeUndefined();
  });
});

describe('decodeUnpaddedBase64 (PHC)', () => {
  it.each([
    { text: 'c29tZXNhbHQ', expected: 'somesalt' },
    { text: '', expected: '' },
  ])('accepts "$text"', ({ text, expected }) => {
    expect(decodeUnpaddedBase64(text)?.toString()).toBe(expected);
  });

  it.each(['c29tZXNhbHQ=', 'c29tZXNhbH_', 'c29tZ', 'c29t ZXNh'])('rejects "%s"', (text) => {
    expect(decodeUnpaddedBase64(text)).toBeUndefined();
  });
});
