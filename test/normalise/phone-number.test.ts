import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CALLING_CODES } from '../../src/normalise/phone-calling-codes.js';
import { parsePhoneNumber, parseWithLibrary, plainPhoneNumberCheck } from '../../src/normalise/phone-number.js';
import { callingCodeTable, renderTable, tablePath } from '../../scripts/generate-phone-calling-codes.mjs';

// Numbers written as + and digits are answered from the calling-code table without the library; every answer the table
// gives must be the library's own.

describe('the calling-code table', () => {
  it('is what the installed library makes (after an upgrade: npm run generate:phone-codes)', async () => {
    expect(fs.readFileSync(tablePath, 'utf8')).toBe(await renderTable(callingCodeTable()));
  });
});

// A small seeded generator, so that a failure names a number that fails again.
function digitsFrom(seed: number): (count: number) => string {
  let state = seed;
  return (count) => {
    let digits = '';
    for (let i = 0; i < count; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      digits += String((state >>> 16) % 10);
    }
    return digits;
  };
}

describe('plainPhoneNumberCheck', () => {
  it('answers as the library does, for every calling code, length and first digit of the national number', () => {
    const randomDigits = digitsFrom(20261128);
    let answered = 0;
    let asked = 0;
    for (const [code] of CALLING_CODES) {
      for (let length = 0; length <= 15 - String(code).length + 1; length++) {
        const nationals = [...'0123456789'].flatMap((first) =>
          length === 0 ? [''] : [first.repeat(length), first + randomDigits(length - 1), first + randomDigits(length - 1)],
        );
        for (const national of new Set(nationals)) {
          const number = `+${code}${national}`;
          const plain = plainPhoneNumberCheck(number);
          asked++;
          if (plain === undefined) continue;
          answered++;
          expect({ number, answer: plain }).toEqual({ number, answer: parseWithLibrary(number) });
        }
      }
    }
    // Most numbers need no library: only those a national prefix could begin (or too long to answer) go to it.
    expect(answered / asked).toBeGreaterThan(0.6);
  });

  it.each([
    ['+14155552671', true],
    ['+447911123456', true],
    ['+4915123456789', true],
    ['+33612345678', true],
    ['+919876543210', true],
    ['+8613812345678', true],
    ['+1415555267', false],
    ['+44791112345678', false],
  ])('answers %s without the library (possible: %s)', (number, possible) => {
    expect(plainPhoneNumberCheck(number)).toEqual(possible ? { ok: true, value: number } : { ok: false });
    expect(parseWithLibrary(number)).toEqual(possible ? { ok: true, value: number } : { ok: false });
  });

  it.each([
    ['punctuation', '+1 415 555 2671'],
    ['a leading 0', '+0123456789'],
    ['fewer than four digits', '+123'],
    ['more than fifteen digits', '+1415555267112345'],
    ['a national prefix the library may strip', '+14155552671'.replace('+1', '+11')],
    ['a calling code nobody has', '+999123456789'],
  ])('leaves %s to the library', (_description, number) => {
    expect(plainPhoneNumberCheck(number)).toBeUndefined();
  });

  it('is what parsePhoneNumber answers with, after trimming', () => {
    expect(parsePhoneNumber(' +14155552671\t')).toEqual({ ok: true, value: '+14155552671' });
    expect(parsePhoneNumber('+1 (415) 555-2671')).toEqual({ ok: true, value: '+14155552671' });
  });
});
