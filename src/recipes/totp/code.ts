import crypto from 'node:crypto';

export type TotpAlgorithm = 'SHA1' | 'SHA256' | 'SHA512';
export const totpAlgorithms: readonly TotpAlgorithm[] = ['SHA1', 'SHA256', 'SHA512'];
const hmacName: Record<TotpAlgorithm, string> = { SHA1: 'sha1', SHA256: 'sha256', SHA512: 'sha512' };

/** RFC 4226 §5.3: HMAC of the 8-byte big-endian counter, dynamic truncation, `digits` decimal digits zero-padded. */
export function hotp(key: Buffer, counter: bigint, algorithm: TotpAlgorithm, digits: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(counter);
  const mac = crypto.createHmac(hmacName[algorithm], key).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** RFC 6238 §4 with T0 = 0: the time step of `epochMillis` for a period in seconds. */
export function timeStep(epochMillis: number, periodSeconds: number): bigint {
  return BigInt(Math.floor(epochMillis / (periodSeconds * 1000)));
}

export function totp(key: Buffer, epochMillis: number, device: { period: number; algorithm: TotpAlgorithm; digits: number }): string {
  return hotp(key, timeStep(epochMillis, device.period), device.algorithm, device.digits);
}
