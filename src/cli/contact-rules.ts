import { parseEmail } from '../normalise/email.js';
import { parsePhoneNumber } from '../normalise/phone-number.js';

// The one place the command applies the core's contact rules, so that a user the core would refuse is reported
// with the export's record instead of being sent.

export type ContactCheck = { value: string } | { reason: string };

export const PHONE_RULE = 'must be in international format with a leading + and country code, e.g. +14155552671';

export function checkEmail(raw: string, field = 'email'): ContactCheck {
  const parsed = parseEmail(raw);
  return parsed.ok ? { value: parsed.value } : { reason: `${field} ${shown(raw, /@/)} is not a valid email: ${parsed.reason}` };
}

export function checkPhoneNumber(raw: string, field = 'phoneNumber'): ContactCheck {
  const parsed = parsePhoneNumber(raw);
  return parsed.ok ? { value: parsed.value } : { reason: `${field} ${shown(raw, /^[\d\s+().\-/]{1,40}$/)} ${PHONE_RULE}` };
}

// A value is quoted in the report only when it looks like what the field should hold: a shifted CSV row can put
// a password hash or salt into a contact column, and those must never reach the console or the report.
function shown(raw: string, looksLike: RegExp): string {
  return looksLike.test(raw) && !raw.includes('$') && raw.length <= 320 ? JSON.stringify(raw) : '(value not shown)';
}
