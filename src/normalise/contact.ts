import { createRequire } from 'node:module';
import type libphonenumber from 'google-libphonenumber';
import { javaTrim } from './java-trim.js';

// Loaded on the first phone number: the library's metadata costs about 14 MB, which a core importing only
// password users never needs.
let phoneLibrary: typeof libphonenumber | undefined;
function phoneNumbers(): typeof libphonenumber {
  phoneLibrary ??= createRequire(import.meta.url)('google-libphonenumber') as typeof libphonenumber;
  return phoneLibrary;
}

export function normaliseEmail(email: string): string {
  return javaTrim(email).toLowerCase();
}

// E.164 when the number parses as an international number; otherwise the trimmed input unchanged.
export function normalisePhoneNumber(phoneNumber: string): string {
  const trimmed = javaTrim(phoneNumber);
  const { PhoneNumberUtil, PhoneNumberFormat } = phoneNumbers();
  const phoneUtil = PhoneNumberUtil.getInstance();
  try {
    return phoneUtil.format(phoneUtil.parse(trimmed, 'ZZ'), PhoneNumberFormat.E164);
  } catch {
    return trimmed;
  }
}
