import { describe, expect, it } from 'vitest';
import { hotp, totp, type TotpAlgorithm } from '../../../src/recipes/totp/code.js';

// RFC 6238 Appendix B with the seeds of erratum 2866 (20, 32 and 64 bytes), 8 digits, period 30.
const seeds: Record<TotpAlgorithm, Buffer> = {
  SHA1: Buffer.from('12345678901234567890'),
  SHA256: Buffer.from('12345678901234567890123456789012'),
  SHA512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
};
const appendixB: [number, Record<TotpAlgorithm, string>][] = [
  [59, { SHA1: '94287082', SHA256: '46119246', SHA512: '90693936' }],
  [1111111109, { SHA1: '07081804', SHA256: '68084774', SHA512: '25091201' }],
  [1111111111, { SHA1: '14050471', SHA256: '67062674', SHA512: '99943326' }],
  [1234567890, { SHA1: '89005924', SHA256: '91819424', SHA512: '93441116' }],
  [2000000000, { SHA1: '69279037', SHA256: '90698825', SHA512: '38618901' }],
  [20000000000, { SHA1: '65353130', SHA256: '77737706', SHA512: '47863826' }],
];

describe('TOTP codes (RFC 6238 Appendix B)', () => {
  for (const [seconds, codes] of appendixB) {
    for (const algorithm of ['SHA1', 'SHA256', 'SHA512'] as const) {
      it(`${algorithm} at T=${seconds}: 8 digits ${codes[algorithm]}, 6 digits its last six`, () => {
        const device = { period: 30, algorithm, digits: 8 };
        expect(totp(seeds[algorithm], seconds * 1000, device)).toBe(codes[algorithm]);
        expect(totp(seeds[algorithm], seconds * 1000, { ...device, digits: 6 })).toBe(codes[algorithm].slice(2));
      });
    }
  }
});

// RFC 4226 Appendix D: HOTP of the SHA-1 seed for counters 0..9, 6 digits.
describe('HOTP (RFC 4226 Appendix D)', () => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  it.each(expected.map((code, counter) => [counter, code] as const))('counter %i ⇒ %s', (counter, code) => {
    expect(hotp(seeds.SHA1, BigInt(counter), 'SHA1', 6)).toBe(code);
  });
});
