import libphonenumber from 'google-libphonenumber';
import { javaTrim } from './java-trim.js';

const phoneUtil = libphonenumber.PhoneNumberUtil.getInstance();

export function normaliseEmail(email: string): string {
  return javaTrim(email).toLowerCase();
}

// E.164 when the number parses as an international number; otherwise the trimmed input unchanged.
export function normalisePhoneNumber(phoneNumber: string): string {
  const trimmed = javaTrim(phoneNumber);
  try {
    return phoneUtil.format(phoneUtil.parse(trimmed, 'ZZ'), libphonenumber.PhoneNumberFormat.E164);
  } catch {
    return trimmed;
  }
}
