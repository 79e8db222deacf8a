import { createRequire } from 'node:module';
import type libphonenumber from 'google-libphonenumber';
import { javaTrim } from './java-trim.js';

export type PhoneNumberCheck = { ok: true; value: string } | { ok: false };

// Loaded on the first phone number: the library's metadata costs about 14 MB, which a core importing only
// password users never needs.
let phoneLibrary: typeof libphonenumber | undefined;
function phoneNumbers(): typeof libphonenumber {
  phoneLibrary ??= createRequire(import.meta.url)('google-libphonenumber') as typeof libphonenumber;
  return phoneLibrary;
}

// A leading + and then only the punctuation people write between digits. The parser alone would also take
// "call me +1 415…", national numbers with a default region, or an extension (dropped from E.164, so two extensions
// of one line would become one account).
const internationalShape = /^\+[0-9][0-9 ()./-]*$/;

/** The phone rule of every entry point: an international number (leading + and country code), in E.164. */
export function parsePhoneNumber(raw: string): PhoneNumberCheck {
  const trimmed = javaTrim(raw);
  if (!internationalShape.test(trimmed)) return { ok: false };
  const { PhoneNumberUtil, PhoneNumberFormat } = phoneNumbers();
  const phoneUtil = PhoneNumberUtil.getInstance();
  try {
    const parsed = phoneUtil.parse(trimmed, 'ZZ');
    // A length the country's numbering plan uses for numbers dialled from abroad (a local-only number is not one);
    // whether the number exists is not checked.
    if (phoneUtil.isPossibleNumberWithReason(parsed) !== PhoneNumberUtil.ValidationResult.IS_POSSIBLE) return { ok: false };
    return { ok: true, value: phoneUtil.format(parsed, PhoneNumberFormat.E164) };
  } catch {
    return { ok: false };
  }
}

/** How earlier versions stored a number: E.164 when the parser took it, otherwise the trimmed input. */
export function legacyPhoneNumberKey(raw: string): string {
  const trimmed = javaTrim(raw);
  const { PhoneNumberUtil, PhoneNumberFormat } = phoneNumbers();
  const phoneUtil = PhoneNumberUtil.getInstance();
  try {
    return phoneUtil.format(phoneUtil.parse(trimmed, 'ZZ'), PhoneNumberFormat.E164);
  } catch {
    return trimmed;
  }
}
