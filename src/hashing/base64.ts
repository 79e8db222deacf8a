// Buffer.from(text, 'base64') skips characters it does not understand and never fails, so every
// stored value is checked here first; a typo in an imported hash must not decode to other bytes.
const STANDARD_BODY = /^[A-Za-z0-9+/]*$/;
const URL_SAFE_BODY = /^[A-Za-z0-9_-]*$/;

/** Either alphabet (not mixed), padding optional but correct when present. */
export function decodeBase64(text: string): Buffer | undefined {
  const padStart = text.indexOf('=');
  const body = padStart === -1 ? text : text.slice(0, padStart);
  const padding = text.length - body.length;
  if (padding > 0 && (!/^={1,2}$/.test(text.slice(padStart)) || text.length % 4 !== 0)) {
    return undefined;
  }
  if (body.length % 4 === 1) return undefined;
  if (!STANDARD_BODY.test(body) && !URL_SAFE_BODY.test(body)) return undefined;
  // Node's decoder understands both alphabets.
  return Buffer.from(body, 'base64');
}

/**
 * The PHC string form used by argon2: standard alphabet, no padding, and canonical: the unused low bits of the
 * last character are zero, so a string that lost characters at the end rarely still decodes.
 */
export function decodeUnpaddedBase64(text: string): Buffer | undefined {
  if (!STANDARD_BODY.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return encodeUnpaddedBase64(bytes) === text ? bytes : undefined;
}

export function encodeUnpaddedBase64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}
