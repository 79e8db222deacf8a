import { createRequire } from 'node:module';
import type libphonenumber from 'google-libphonenumber';
import { normaliseEmail } from '../normalise/contact.js';

// The one place the command applies the core's contact rules; when the core's own checks land as a module,
// only this file changes.

export type ContactCheck = { value: string } | { reason: string };

export const PHONE_RULE = 'must be in international format with a leading + and country code, e.g. +14155552671';

// Whitespace, controls, zero-width and bidirectional formatting characters: no mail system delivers to them,
// and invisible ones make two spellings of one address look like two accounts.
const UNDELIVERABLE = /[\s\p{Cc}\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/u;

export function checkEmail(raw: string, field = 'email'): ContactCheck {
  const email = normaliseEmail(raw.normalize('NFC'));
  const at = email.lastIndexOf('@');
  const named = `${field} ${shown(raw, /@/)}`;
  if (UNDELIVERABLE.test(email)) return { reason: `${named} contains spaces, control or invisible characters` };
  if (at <= 0 || at === email.length - 1 || email.indexOf('@') !== at) {
    return { reason: `${named} is not an email address (one @ between a name and a domain)` };
  }
  const domain = email.slice(at + 1);
  if (domain.startsWith('.') || domain.endsWith('.') || domain.includes('..')) return { reason: `${named} has no valid domain` };
  return { value: email };
}

// A value is quoted in the report only when it looks like what the field should hold: a shifted CSV row can put
// a password hash or salt into a contact column, and those must never reach the console or the report.
function shown(raw: string, looksLike: RegExp): string {
  return looksLike.test(raw) && !raw.includes('$') && raw.length <= 320 ? JSON.stringify(raw) : '(value not shown)';
}

let phoneLibrary: typeof libphonenumber | undefined;

export function checkPhoneNumber(raw: string, field = 'phoneNumber'): ContactCheck {
  const text = raw.trim();
  const refused = { reason: `${field} ${shown(raw, /^[\d\s+().\-\/]{1,40}$/)} ${PHONE_RULE}` };
  if (!text.startsWith('+')) return refused;
  phoneLibrary ??= createRequire(import.meta.url)('google-libphonenumber') as typeof libphonenumber;
  const util = phoneLibrary.PhoneNumberUtil.getInstance();
  try {
    const parsed = util.parse(text, 'ZZ');
    if (!util.isPossibleNumber(parsed)) return refused;
    return { value: util.format(parsed, phoneLibrary.PhoneNumberFormat.E164) };
  } catch {
    return refused;
  }
}
