/** The alphabet of the Unix crypt family and phpass: six bits per character, low bits written first. */
export const CRYPT_ALPHABET = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const CRYPT_CHARACTERS = /^[./0-9A-Za-z]*$/;

/** Bytes taken three at a time (first byte most significant), `characters` characters per group; -1 is a zero byte. */
export type CryptGroup = readonly [number, number, number, number];

export function encodeCryptGroups(bytes: Buffer, groups: readonly CryptGroup[]): string {
  let text = '';
  for (const [high, middle, low, characters] of groups) {
    let word = (byteAt(bytes, high) << 16) | (byteAt(bytes, middle) << 8) | byteAt(bytes, low);
    for (let n = 0; n < characters; n++) {
      text += CRYPT_ALPHABET[word & 0x3f];
      word >>= 6;
    }
  }
  return text;
}

/** phpass's encoding: little-endian groups of three bytes, a short last group written with as few characters as it needs. */
export function encodeCryptLittleEndian(bytes: Buffer): string {
  const groups: CryptGroup[] = [];
  for (let i = 0; i < bytes.length; i += 3) {
    const remaining = bytes.length - i;
    groups.push([remaining > 2 ? i + 2 : -1, remaining > 1 ? i + 1 : -1, i, Math.min(remaining, 3) + 1]);
  }
  return encodeCryptGroups(bytes, groups);
}

/** A checksum of `bits` bits written in whole characters leaves high bits of its last character unused; they must be zero. */
export function hasZeroPaddingBits(text: string, bits: number): boolean {
  const unused = text.length * 6 - bits;
  return CRYPT_ALPHABET.indexOf(text[text.length - 1]) >> (6 - unused) === 0;
}

function byteAt(bytes: Buffer, index: number): number {
  return index < 0 ? 0 : bytes[index];
}
