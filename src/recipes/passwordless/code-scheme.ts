import crypto from 'node:crypto';

// The passwordless code scheme of contract §5.1. Only preAuthSessionId, the salt and linkCodeHash are stored:
// the deviceId, the userInputCode and the linkCode exist only in the caller's hands.

const secretLength = 32;
const generatedCodeLength = 6;

export interface DeviceSecrets {
  /** D: never stored; the caller keeps it as `deviceId`. */
  deviceIdBytes: Buffer;
  /** S: stored per device, so a linkCode cannot be derived from the deviceId and a guessed userInputCode. */
  linkCodeSalt: Buffer;
}

export function newDeviceSecrets(): DeviceSecrets {
  return { deviceIdBytes: crypto.randomBytes(secretLength), linkCodeSalt: crypto.randomBytes(secretLength) };
}

export function encodeDeviceId(deviceIdBytes: Buffer): string {
  return deviceIdBytes.toString('base64');
}

export function encodeSalt(linkCodeSalt: Buffer): string {
  return linkCodeSalt.toString('base64');
}

export function decodeSalt(stored: string): Buffer {
  return Buffer.from(stored, 'base64');
}

/** B64URL(SHA-256(D)): the device key, also called deviceIdHash. */
export function preAuthSessionIdOf(deviceIdBytes: Buffer): string {
  return crypto.createHash('sha256').update(deviceIdBytes).digest('base64url');
}

/** L = HMAC-SHA256(key = D ‖ S, message = UTF-8(U)). */
export function linkCodeBytesOf(deviceIdBytes: Buffer, linkCodeSalt: Buffer, userInputCode: string): Buffer {
  return crypto
    .createHmac('sha256', Buffer.concat([deviceIdBytes, linkCodeSalt]))
    .update(userInputCode, 'utf8')
    .digest();
}

export function encodeLinkCode(linkCodeBytes: Buffer): string {
  return linkCodeBytes.toString('base64url');
}

/** B64URLP(SHA-256(L)): URL-safe and padded, so it is 44 characters ending in `=`. */
export function linkCodeHashOf(linkCodeBytes: Buffer): string {
  return crypto.createHash('sha256').update(linkCodeBytes).digest('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

export function generateUserInputCode(): string {
  let code = '';
  for (let i = 0; i < generatedCodeLength; i++) code += String(crypto.randomInt(10));
  return code;
}

export interface IssuedCode {
  linkCode: string;
  linkCodeHash: string;
}

export function issueCode(secrets: DeviceSecrets, userInputCode: string): IssuedCode {
  const linkCodeBytes = linkCodeBytesOf(secrets.deviceIdBytes, secrets.linkCodeSalt, userInputCode);
  return { linkCode: encodeLinkCode(linkCodeBytes), linkCodeHash: linkCodeHashOf(linkCodeBytes) };
}
