import { createRequire } from 'node:module';
import type libphonenumber from 'google-libphonenumber';
import { javaTrim } from './java-trim.js';
import { CALLING_CODES } from './phone-calling-codes.js';

export type PhoneNumberCheck = { ok: true; value: string } | { ok: false };

// Loaded on the first phone number the calling-code table cannot answer: loading the library costs about 10 MB and,
// on a small machine, some 60 ms, which a core or a migration whose numbers are written as + and digits never needs.
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
  return plainPhoneNumberCheck(trimmed) ?? parseWithLibrary(trimmed);
}

// + and 4 to 15 digits, the first not 0: how exports and most clients write a number.
const plainInternational = /^\+[1-9][0-9]{3,14}$/;

interface CallingCodePlan {
  nationalPrefix: RegExp | undefined;
  possibleLengths: ReadonlySet<number>;
}

let plans: Map<number, CallingCodePlan> | undefined;
function callingCodePlans(): Map<number, CallingCodePlan> {
  plans ??= new Map(
    CALLING_CODES.map(([code, prefix, lengths]) => [
      code,
      // As the library matches it: at the start of the national number.
      { nationalPrefix: prefix === '' ? undefined : new RegExp(`^(?:${prefix})`), possibleLengths: new Set(lengths) },
    ]),
  );
  return plans;
}

/**
 * What the library answers for + and digits, from its own tables, when that needs no more than them: the calling code
 * is the shortest prefix that is one (as the library takes it) and nothing the library could strip as a national
 * prefix begins the rest, so E.164 is the input itself and only the length decides. Undefined: ask the library.
 */
export function plainPhoneNumberCheck(trimmed: string): PhoneNumberCheck | undefined {
  if (!plainInternational.test(trimmed)) return undefined;
  for (let digits = 1; digits <= 3; digits++) {
    const plan = callingCodePlans().get(Number(trimmed.slice(1, 1 + digits)));
    if (plan === undefined) continue;
    const national = trimmed.slice(1 + digits);
    if (plan.nationalPrefix?.test(national)) return undefined;
    return plan.possibleLengths.has(national.length) ? { ok: true, value: trimmed } : { ok: false };
  }
  return undefined;
}

/** The rule as the library applies it, for a trimmed number of the international shape. */
export function parseWithLibrary(trimmed: string): PhoneNumberCheck {
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
