// Base32 (RFC 4648 §6) from outside, decoded here; Buffer has no base32, and a decoder that skips what it does not
// understand (commons-codec, the reference core's) stores a hex key as base32 that never verifies (contract M-5.2).
// - decodeBase32: as an encoder writes it: upper case, padding optional but correct when present, unused bits zero.
// - decodeBase32Loose: what authenticator apps read from a key: upper case, no padding, any length, the bits left
//   over after the last whole byte dropped whatever their value. Callers canonicalise first (totp/secret.ts).
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const VALUES = new Map([...ALPHABET].map((character, index) => [character, index]));
// Characters of the last quantum that leave whole bytes (RFC 4648 §6: 2, 4, 5 or 7 characters; 0 for a full one).
const WHOLE_BYTE_LENGTHS = new Set([0, 2, 4, 5, 7]);
const PADDING_FOR_LENGTH: Record<number, number> = { 0: 0, 2: 6, 4: 4, 5: 3, 7: 1 };

function decodeBits(body: string): { bytes: Buffer; leftover: number } | undefined {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const character of body) {
    const value = VALUES.get(character);
    if (value === undefined) return undefined;
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  return { bytes: Buffer.from(bytes), leftover: buffer & ((1 << bits) - 1) };
}

/** Canonical RFC 4648 base32; padding optional, but when present it must be exactly what an encoder writes. */
export function decodeBase32(text: string): Buffer | undefined {
  const padStart = text.indexOf('=');
  const body = padStart === -1 ? text : text.slice(0, padStart);
  const remainder = body.length % 8;
  if (!WHOLE_BYTE_LENGTHS.has(remainder)) return undefined;
  if (
    padStart !== -1 &&
    (text.length % 8 !== 0 || !/^=+$/.test(text.slice(padStart)) || text.length - padStart !== PADDING_FOR_LENGTH[remainder])
  ) {
    return undefined;
  }
  const decoded = decodeBits(body);
  return decoded !== undefined && decoded.leftover === 0 ? decoded.bytes : undefined;
}

/** Upper-case alphabet only, no padding; trailing bits that make no whole byte are dropped. */
export function decodeBase32Loose(text: string): Buffer | undefined {
  return decodeBits(text)?.bytes;
}

export function encodeBase32(bytes: Buffer, { padding }: { padding: boolean }): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return padding ? out.padEnd(Math.ceil(out.length / 8) * 8, '=') : out;
}
