import { CoreError, coreError } from '../errors.js';
import { lowerCasesIntoAscii, parseEmail } from './email.js';
import { javaTrim } from './java-trim.js';
import { legacyPhoneNumberKey, parsePhoneNumber } from './phone-number.js';

// The contact rules shared by every route, bulk import and the migration command.

export type ContactKind = 'email' | 'phoneNumber';

/** `value` is what is stored and compared; `message` is the 400 text naming `field`. */
export type ContactCheck = { ok: true; value: string } | { ok: false; field: string; reason: string; message: string };

export function checkEmail(raw: string, field = 'email'): ContactCheck {
  const parsed = parseEmail(raw);
  if (parsed.ok) return parsed;
  return { ok: false, field, reason: parsed.reason, message: coreError('INVALID_EMAIL', field, parsed.reason).publicMessage };
}

export function checkPhoneNumber(raw: string, field = 'phoneNumber'): ContactCheck {
  const parsed = parsePhoneNumber(raw);
  if (parsed.ok) return parsed;
  const message = coreError('INVALID_PHONE_NUMBER', field).publicMessage;
  return { ok: false, field, reason: 'not an international number', message };
}

export function checkContact(kind: ContactKind, raw: string, field: string = kind): ContactCheck {
  return kind === 'email' ? checkEmail(raw, field) : checkPhoneNumber(raw, field);
}

/** The normalised value, or a 400 naming the field. */
export function requireContact(kind: ContactKind, raw: string, field: string = kind): string {
  const check = checkContact(kind, raw, field);
  if (!check.ok) throw new CoreError(kind === 'email' ? 'INVALID_EMAIL' : 'INVALID_PHONE_NUMBER', check.message);
  return check.value;
}

export const requireEmail = (raw: string, field = 'email') => requireContact('email', raw, field);
export const requirePhoneNumber = (raw: string, field = 'phoneNumber') => requireContact('phoneNumber', raw, field);

/** How earlier versions stored an email: trimmed and lower-cased, nothing refused, no NFC. */
export function legacyEmailKey(raw: string): string {
  return javaTrim(raw).toLowerCase();
}

export { legacyPhoneNumberKey };

/**
 * Values a lookup tries in order: the normalised value, then the spelling an earlier version would have stored
 * (so rows stored before the rules existed stay reachable). `refusal` is set when the input breaks the rules: a
 * path that writes the value answers it; a lookup or removal does not, since no row can hold such a value unless
 * an earlier version stored it (found under its old spelling): it answers "not found", as the reference does.
 */
export interface ContactLookup {
  keys: string[];
  refusal?: CoreError;
}

export function contactLookup(kind: ContactKind, raw: string, field: string = kind): ContactLookup {
  const check = checkContact(kind, raw, field);
  const legacy = kind === 'email' ? legacyEmailKey(raw) : legacyPhoneNumberKey(raw);
  if (check.ok) return { keys: legacy === check.value ? [check.value] : [check.value, legacy] };
  const refusal = new CoreError(kind === 'email' ? 'INVALID_EMAIL' : 'INVALID_PHONE_NUMBER', check.message);
  // KELVIN SIGN and the like lower-case onto another account's address: never look them up under that address.
  const mergesIntoAscii = kind === 'email' && lowerCasesIntoAscii(javaTrim(raw));
  return { keys: mergesIntoAscii ? [] : [legacy], refusal };
}

export async function findByContact<T>(
  lookup: ContactLookup,
  find: (value: string) => Promise<T | undefined | null>,
): Promise<T | undefined> {
  for (const key of lookup.keys) {
    const found = await find(key);
    if (found) return found;
  }
  return undefined;
}

/** @deprecated the lenient rule of earlier versions (no refusal); use checkEmail / requireEmail. */
export const normaliseEmail = legacyEmailKey;
/** @deprecated the lenient rule of earlier versions (no refusal); use checkPhoneNumber / requirePhoneNumber. */
export const normalisePhoneNumber = legacyPhoneNumberKey;
