import { describe, expect, it } from 'vitest';
import { checkEmail, checkPhoneNumber, contactLookup, requireContact } from '../../src/normalise/contact.js';

// The module the routes, bulk import and the migration command share: value or reason, and the lookup keys.
describe('checkEmail', () => {
  it.each([
    ['trims (Java rule) and lower-cases', ' \tAda@Example.COM\n', 'ada@example.com'],
    ['composes NFD into NFC', 'Jose\u0301@Example.com', 'jos\u00e9@example.com'],
    ['keeps plus tags and dots', 'first.last+tag@sub.example.co.uk', 'first.last+tag@sub.example.co.uk'],
    ['keeps non-ASCII letters', 'Straße@Bücher.DE', 'straße@bücher.de'],
    ['lower-cases Greek with a final sigma', 'ΟΔΥΣΣΕΥΣ@example.gr', 'οδυσσευς@example.gr'],
    ['accepts an address literal', 'ops@[192.0.2.1]', 'ops@[192.0.2.1]'],
    ['accepts a single-label domain', 'ops@localhost', 'ops@localhost'],
  ])('%s', (_description, raw, value) => {
    expect(checkEmail(raw)).toEqual({ ok: true, value });
  });

  it('names the field it was given, with the reason', () => {
    expect(checkEmail('bob smith@example.com', 'loginMethods[0].email')).toEqual({
      ok: false,
      field: 'loginMethods[0].email',
      reason: 'it contains a space',
      message: 'loginMethods[0].email is not a valid email address: it contains a space',
    });
  });
});

describe('checkPhoneNumber', () => {
  it.each([
    ['+1 (415) 555-2671', '+14155552671'],
    ['+44-207 183 8751', '+442071838751'],
    [' +33 6 12 34 56 78 ', '+33612345678'],
    ['+49 30/123456', '+4930123456'],
    ['+800 1234 5678', '+80012345678'],
  ])('%s is %s in E.164', (raw, value) => {
    expect(checkPhoneNumber(raw)).toEqual({ ok: true, value });
  });

  it('refuses with the message naming the field', () => {
    expect(checkPhoneNumber('4155552671')).toEqual({
      ok: false,
      field: 'phoneNumber',
      reason: 'not an international number',
      message: 'phoneNumber must be in international format with a leading + and country code, e.g. +14155552671',
    });
    expect(() => requireContact('phoneNumber', '4155552671')).toThrow(/^phoneNumber must be in international format/);
  });
});

describe('contactLookup', () => {
  it.each([
    ['a valid value: one key', 'email', 'Ada@Example.com', ['ada@example.com'], false],
    ['NFD: the NFC key, then the spelling stored before', 'email', 'Jose\u0301@x.com', ['jos\u00e9@x.com', 'jose\u0301@x.com'], false],
    ['a refused email: only its earlier spelling, and the refusal', 'email', ' Bob Smith@x.com', ['bob smith@x.com'], true],
    ['KELVIN SIGN: no key at all, never the ASCII address', 'email', '\u212Avictim@uni.com', [], true],
    ['a phone number in another spelling: its E.164 key', 'phoneNumber', '+1 415 555 2671', ['+14155552671'], false],
    ['a refused phone number: the trimmed text stored before', 'phoneNumber', ' 14155552673 ', ['14155552673'], true],
  ] as const)('%s', (_description, kind, raw, keys, refused) => {
    const lookup = contactLookup(kind, raw);
    expect([lookup.keys, lookup.refusal !== undefined]).toEqual([keys, refused]);
  });
});
