const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Standard-alphabet base64 that must be written exactly as an encoder writes it: padded to a multiple of four,
 * unused bits zero. Anything else would let two different strings stand for the same bytes, or a typo decode
 * to other bytes, since Buffer.from(text, 'base64') skips what it does not understand.
 */
export function decodePaddedBase64(text: string): Buffer | undefined {
  if (!STANDARD.test(text) || text.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}
