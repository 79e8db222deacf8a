import { javaTrim } from './java-trim.js';

export type EmailCheck = { ok: true; value: string } | { ok: false; reason: string };

// Spaces, line and paragraph separators, controls, format characters (zero-width, bidirectional overrides, soft
// hyphen, byte-order mark), private use and lone surrogates: none of them belongs in a deliverable address, and the
// invisible ones let two addresses that look the same become two accounts.
const refusedCategory = /[\p{Z}\p{Cc}\p{Cf}\p{Co}\p{Cs}]/u;
// Outside a quoted local part (not accepted here) RFC 5322 allows none of these.
const specialsOutsideQuotes = /["(),:;<>[\\\]]/;
const domainLabel = /^[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?$/u;
const domainLiteral = /^\[[0-9a-f:.]+\]$/;
// Fast paths for the common case (bulk import checks millions): printable ASCII needs no NFC, has no invisible
// characters and no lookalikes; an ASCII host name needs no per-label walk.
const printableAscii = /^[\x21-\x7e]*$/;
const asciiHostName = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const maxDomainLabelLength = 63;

function codePoint(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

// A character that is not ASCII but reads as ASCII after lower-casing (KELVIN SIGN → k, İ → i + dot) or after
// compatibility folding (fullwidth ａ, ligature ﬁ, ª, ①) would make a second spelling of an existing ASCII address.
// Refused rather than folded: folding would merge two stored accounts into one.
function findAsciiLookalike(email: string, folding: (character: string) => string): string | undefined {
  for (const character of email) {
    if (character.charCodeAt(0) >= 0x80 && /[\x00-\x7f]/.test(folding(character))) return character;
  }
  return undefined;
}

const lowerCase = (character: string) => character.toLowerCase();
const lowerCaseAndCompatibility = (character: string) => `${character.toLowerCase()}${character.normalize('NFKC')}`;

/** Whether lower-casing turns a non-ASCII character of `email` into ASCII (the spelling merges with another). */
export function lowerCasesIntoAscii(email: string): boolean {
  return findAsciiLookalike(email, lowerCase) !== undefined;
}

function describeRefusedCharacter(character: string): string {
  if (character === ' ') return 'it contains a space';
  if (/\p{Z}/u.test(character)) return `it contains a space character (${codePoint(character)})`;
  return `it contains an invisible or control character (${codePoint(character)})`;
}

function checkDomain(domain: string): string | undefined {
  if (domain === '') return 'it has no domain after the @';
  if (asciiHostName.test(domain) || domainLiteral.test(domain)) return undefined;
  for (const label of domain.split('.')) {
    if (label === '') return 'its domain has an empty label (a leading, trailing or double dot)';
    if (label.length > maxDomainLabelLength) return `its domain has a label longer than ${maxDomainLabelLength} characters`;
    if (!domainLabel.test(label)) return 'its domain may hold only letters, digits, dots and inner hyphens';
  }
  return undefined;
}

// The SDK makes up an address for a user who has none (the reference's isFakeEmail): '<provider user id>.<provider>'
// or a phone number at stfakeemail.supertokens.com, or an older '…@<provider>.fakeemail.com'. Nothing is delivered
// there, and the provider's user id may itself be an email, so the local part may hold an @ and RFC 5322 specials.
function isSdkPlaceholder(email: string): boolean {
  return email.endsWith('@stfakeemail.supertokens.com') || email.endsWith('.fakeemail.com');
}

function syntaxProblem(email: string): string | undefined {
  if (email === '') return 'it is empty';
  const at = email.lastIndexOf('@');
  if (at === -1) return 'it has no @';
  const local = email.slice(0, at);
  if (local === '') return 'it has nothing before the @';
  if (isSdkPlaceholder(email)) return checkDomain(email.slice(at + 1));
  if (email.indexOf('@') !== at) return 'it has more than one @';
  const special = specialsOutsideQuotes.exec(local);
  if (special) return `it contains ${special[0]} before the @`;
  return checkDomain(email.slice(at + 1));
}

/**
 * The email rule of every entry point: trim (Java rule), NFC, lower-case, then a syntax check that refuses what no
 * mail system would deliver. Quoted local parts ("john doe"@…) are not accepted.
 */
export function parseEmail(raw: string): EmailCheck {
  const trimmed = javaTrim(raw);
  if (printableAscii.test(trimmed)) return checked(trimmed.toLowerCase());
  const refused = refusedCategory.exec(trimmed);
  if (refused) return { ok: false, reason: describeRefusedCharacter(refused[0]) };
  // Before NFC, which itself turns KELVIN SIGN into K.
  const lookalike = findAsciiLookalike(trimmed, lowerCaseAndCompatibility);
  if (lookalike !== undefined) {
    const ascii = lookalike
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[^\x00-\x7f]/g, '');
    return { ok: false, reason: `it contains ${codePoint(lookalike)}, which would be read as the ASCII "${ascii}"` };
  }
  return checked(trimmed.normalize('NFC').toLowerCase().normalize('NFC'));
}

function checked(value: string): EmailCheck {
  const problem = syntaxProblem(value);
  return problem === undefined ? { ok: true, value } : { ok: false, reason: problem };
}
