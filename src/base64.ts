// Every base64 text that comes from outside (hash fields, deviceIds, pagination tokens, settings) is decoded here.
// Buffer.from(text, 'base64') skips characters it does not understand and never fails, so a typo or a forged
// value would silently decode to other bytes. The decoders differ on purpose in what they accept:
// - decodeStandardBase64, decodeUrlSafeBase64, decodeEitherBase64: one alphabet (or either, never mixed), padding
//   optional but correct when present; what the reference's Java decoders accept (tokens, deviceIds, hash fields).
// - decodePaddedCanonicalBase64: exactly as an encoder writes it (padded, unused bits zero), so no two strings
//   stand for the same bytes.
// - decodeUnpaddedCanonicalBase64: the PHC string form (argon2): no padding, unused bits zero, so a string that lost
//   characters at the end rarely still decodes.
const STANDARD = /^[A-Za-z0-9+/]*$/;
const URL_SAFE = /^[A-Za-z0-9_-]*$/;

// The text before its padding, or undefined when the padding is not one or two '=' ending a multiple of four.
function unpaddedBody(text: string): string | undefined {
  const padStart = text.indexOf('=');
  if (padStart === -1) return text;
  return /^={1,2}$/.test(text.slice(padStart)) && text.length % 4 === 0 ? text.slice(0, padStart) : undefined;
}

function decodeIn(text: string, alphabets: RegExp[]): Buffer | undefined {
  const body = unpaddedBody(text);
  if (body === undefined || body.length % 4 === 1 || !alphabets.some((alphabet) => alphabet.test(body))) return undefined;
  // Node's decoder reads both alphabets.
  return Buffer.from(body, 'base64');
}

/** Standard alphabet (`+` `/`), padding optional but correct when present. */
export function decodeStandardBase64(text: string): Buffer | undefined {
  return decodeIn(text, [STANDARD]);
}

/** URL-safe alphabet (`-` `_`), padding optional but correct when present. */
export function decodeUrlSafeBase64(text: string): Buffer | undefined {
  return decodeIn(text, [URL_SAFE]);
}

/** Either alphabet (not mixed), padding optional but correct when present. */
export function decodeEitherBase64(text: string): Buffer | undefined {
  return decodeIn(text, [STANDARD, URL_SAFE]);
}

/** Standard alphabet written exactly as an encoder writes it: padded to a multiple of four, unused bits zero. */
export function decodePaddedCanonicalBase64(text: string): Buffer | undefined {
  const bytes = text.length % 4 === 0 ? decodeStandardBase64(text) : undefined;
  return bytes?.toString('base64') === text ? bytes : undefined;
}

/** Standard alphabet, no padding, unused bits zero (the PHC string form). */
export function decodeUnpaddedCanonicalBase64(text: string): Buffer | undefined {
  const bytes = text.includes('=') ? undefined : decodeStandardBase64(text);
  return bytes !== undefined && encodeUnpaddedBase64(bytes) === text ? bytes : undefined;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Whether the text is standard base64 exactly as an encoder writes it (padded, unused bits zero, at least one
 * byte): what decoding it and encoding the bytes again gives back unchanged, told without either.
 */
export function isPaddedCanonicalBase64(text: string): boolean {
  if (text.length === 0 || text.length % 4 !== 0) return false;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const body = padding === 0 ? text : text.slice(0, -padding);
  if (!STANDARD.test(body)) return false;
  if (padding === 0) return true;
  // The last character before the padding carries 4 (one '=') or 2 (two '=') bits beyond the bytes: zero.
  return (ALPHABET.indexOf(body[body.length - 1]) & (padding === 1 ? 0b11 : 0b1111)) === 0;
}

export function encodeUnpaddedBase64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}

/**
 * What is wrong with a text decodeEitherBase64 refuses, for a startup error that must not quote the value (a
 * signer key is a secret); undefined when it decodes.
 */
export function describeBase64Problem(text: string): string | undefined {
  if (text === '') return 'it is empty';
  const padStart = text.indexOf('=');
  const body = padStart === -1 ? text : text.slice(0, padStart);
  const badIndex = [...body].findIndex((character) => !/[A-Za-z0-9+/_-]/.test(character));
  if (badIndex !== -1) return `character ${badIndex + 1} of ${text.length} is not in the base64 alphabet`;
  if (/[+/]/.test(body) && /[_-]/.test(body)) return 'it mixes the standard (+ /) and URL-safe (- _) alphabets';
  if (unpaddedBody(text) === undefined) {
    return `the padding is wrong ('=' may only end the value, once or twice, making its length a multiple of 4)`;
  }
  if (body.length % 4 === 1) return `its length (${body.length} characters without padding) cannot be base64`;
  return undefined;
}
