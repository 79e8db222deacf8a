import { beforeAll, describe, it } from 'vitest';
import { call, useTestApp } from '../helper.js';
import { consumeWithLink, createCode } from '../recipes/passwordless/flow-helpers.js';
import { emailEntryPoints, expectRefused, phoneEntryPoints, type Existing } from './entry-points.js';

const phoneMessage = 'phoneNumber must be in international format with a leading + and country code, e.g. +14155552671';
const emailMessage = (reason: string) => `email is not a valid email address: ${reason}`;

const badPhoneNumbers: [string, string][] = [
  ['no leading +', '14155552673'],
  ['international prefix 00 instead of +', '0044 20 7183 8751'],
  ['words', 'call me'],
  ['a number inside words', 'call me +14155552671'],
  ['only a country code', '+1'],
  ['an unknown country code', '+999 1234 5678'],
  ['too short for its country', '+1 555 0102'],
  ['an extension (E.164 has none)', '+1 415 555 2671 ext. 5'],
  ['fullwidth digits', '+\uFF11\uFF14\uFF11\uFF15\uFF15\uFF15\uFF15\uFF12\uFF16\uFF17\uFF11'],
  ['a zero-width space', '+1415555\u200B2671'],
  ['a right-to-left override', '\u202E+14155552671'],
  ['empty', ''],
];

const badEmails: [string, string, string][] = [
  ['no @', 'not-an-email', 'it has no @'],
  ['a space', 'bob smith@example.com', 'it contains a space'],
  ['a no-break space', 'bob\u00A0smith@example.com', 'it contains a space character (U+00A0)'],
  ['nothing before the @', '@example.com', 'it has nothing before the @'],
  ['no domain', 'ada@', 'it has no domain after the @'],
  ['two @', 'ada@host@example.com', 'it has more than one @'],
  ['a double dot in the domain', 'ada@example..com', 'its domain has an empty label (a leading, trailing or double dot)'],
  ['an underscore in the domain', 'ada@exa_mple.com', 'its domain may hold only letters, digits, dots and inner hyphens'],
  ['an angle bracket', 'Ada <ada@example.com>', 'it contains a space'],
  ['a comma', 'ada,bob@example.com', 'it contains , before the @'],
  ['empty', '', 'it is empty'],
  ['a zero-width space', 'ad\u200Ba@example.com', 'it contains an invisible or control character (U+200B)'],
  ['a zero-width joiner', 'ada\u200D@example.com', 'it contains an invisible or control character (U+200D)'],
  ['a right-to-left override', 'ada\u202Emoc.elpmaxe@evil.com', 'it contains an invisible or control character (U+202E)'],
  ['a bidi isolate', '\u2066ada@example.com', 'it contains an invisible or control character (U+2066)'],
  ['a soft hyphen', 'a\u00ADda@example.com', 'it contains an invisible or control character (U+00AD)'],
  ['a control character', 'ada\u0007@example.com', 'it contains an invisible or control character (U+0007)'],
  ['KELVIN SIGN', '\u212Avictim@uni.com', 'it contains U+212A, which would be read as the ASCII "k"'],
  ['dotted capital I', '\u0130nci@example.com', 'it contains U+0130, which would be read as the ASCII "i"'],
  ['fullwidth letters', '\uFF41da@example.com', 'it contains U+FF41, which would be read as the ASCII "a"'],
  ['a ligature', '\uFB01nn@example.com', 'it contains U+FB01, which would be read as the ASCII "fi"'],
  ['a fullwidth @', 'ada\uFF20example.com', 'it contains U+FF20, which would be read as the ASCII "@"'],
];

// Each bad value on every route that takes the field: a 400 with the exact message where the value would be written,
// "not found" where it is only looked up or removed (issue 27), and nothing written either way.
describe('contacts the rules refuse', () => {
  let existing: Existing;

  const t = useTestApp({ bulk_import_worker: false });
  beforeAll(async () => {
    const passwordless = await consumeWithLink(t.app, await createCode(t.app, { email: 'pl@example.com' }));
    const emailPassword = await call(t.app, 'POST', '/recipe/signup', { body: { email: 'ep@example.com', password: 'a password' } });
    existing = { passwordlessUserId: passwordless.json.user.id, emailPasswordUserId: emailPassword.json.user.id };
  });

  // Bulk import answers an empty string with its own "should be of type string" (tested with bulk import).
  const nonEmpty = <T extends string[]>(cases: T[]) => cases.filter(([, value]) => value !== '');

  for (const entry of phoneEntryPoints) {
    it.each(entry.answer ? nonEmpty(badPhoneNumbers) : badPhoneNumbers)(
      `${entry.name}: phone number with %s`,
      async (_description, phoneNumber) => {
        await expectRefused(t, entry, phoneNumber, existing, phoneMessage);
      },
    );
  }

  for (const entry of emailEntryPoints) {
    it.each(entry.answer ? nonEmpty(badEmails) : badEmails)(`${entry.name}: email with %s`, async (_description, email, reason) => {
      await expectRefused(t, entry, email, existing, emailMessage(reason));
    });
  }
});
