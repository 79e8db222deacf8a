import { decodeBase32Loose, encodeBase32 } from '../../base32.js';
import { decodeEitherBase64 } from '../../base64.js';
import { coreError, errorMessage, type CoreError, type ErrorCode } from '../../errors.js';
import { totpAlgorithms, type TotpAlgorithm } from './code.js';

// Contract M-6: an imported key arrives in the encoding its source uses and is stored as the key bytes in canonical
// upper-case unpadded base32. Encodings are never guessed (a hex key is also valid base32 text, of other bytes);
// only an otpauth:// URL is recognised by its prefix. Anything that does not decode, or is implausibly short, is
// refused with a reason, so a user is never imported with a key that can never verify.
export const secretEncodings = ['base32', 'hex', 'base64', 'raw', 'otpauth'] as const;
export type SecretEncoding = (typeof secretEncodings)[number];
export const MAX_SECRET_BYTES = 160;

export interface SecretInput {
  secretKey: string;
  secretEncoding?: string;
  algorithm?: string;
  digits?: number;
  // Only when the caller gave it: a default must not contradict the URL's own period.
  period?: number;
}

export interface NormalisedSecret {
  secretKey: string;
  algorithm: TotpAlgorithm;
  digits: number;
  period?: number;
}

/** Why a secret was refused: a catalog code and its arguments, without the suffix that says where it was found. */
export type SecretRefusal =
  | ['TOTP_SECRET_UNDECODABLE', string]
  | ['TOTP_SECRET_TOO_SHORT', number, number]
  | ['TOTP_SECRET_TOO_LONG', number, number]
  | ['TOTP_OTPAUTH_INVALID']
  | ['TOTP_OTPAUTH_HOTP']
  | ['TOTP_OTPAUTH_CONFLICT', string, string]
  | ['TOTP_SECRET_ENCODING_INVALID']
  | ['TOTP_ALGORITHM_INVALID']
  | ['TOTP_DIGITS_INVALID'];

export type SecretResult = { ok: true; secret: NormalisedSecret } | { ok: false; refusal: SecretRefusal };

const withArgs = (refusal: SecretRefusal): [ErrorCode, ...unknown[]] => refusal;
/** The refusal as a route's 400. */
export function secretError(refusal: SecretRefusal): CoreError {
  const [code, ...args] = withArgs(refusal);
  return (coreError as (code: ErrorCode, ...args: unknown[]) => CoreError)(code, ...args, '');
}
/** The refusal as a line of a bulk-import user's `errors`. */
export function secretMessage(refusal: SecretRefusal, suffix: string): string {
  const [code, ...args] = withArgs(refusal);
  return (errorMessage as (code: ErrorCode, ...args: unknown[]) => string)(code, ...args, suffix);
}

const refuse = (refusal: SecretRefusal): SecretResult => ({ ok: false, refusal });

export function normaliseSecret(input: SecretInput, minimumBits: number): SecretResult {
  const encoding = input.secretEncoding ?? (input.secretKey.startsWith('otpauth://') ? 'otpauth' : 'base32');
  if (!(secretEncodings as readonly string[]).includes(encoding)) return refuse(['TOTP_SECRET_ENCODING_INVALID']);
  if (input.algorithm !== undefined && !(totpAlgorithms as readonly string[]).includes(input.algorithm)) {
    return refuse(['TOTP_ALGORITHM_INVALID']);
  }
  if (input.digits !== undefined && !validDigits(input.digits)) return refuse(['TOTP_DIGITS_INVALID']);
  const base = { algorithm: (input.algorithm ?? 'SHA1') as TotpAlgorithm, digits: input.digits ?? 6, period: input.period };
  if (encoding === 'otpauth') return fromOtpauthUrl(input, minimumBits);
  const key = decodeAs(encoding as Exclude<SecretEncoding, 'otpauth'>, input.secretKey);
  if (key === undefined) return refuse(['TOTP_SECRET_UNDECODABLE', encoding]);
  const checked = checkKeyLength(key, minimumBits);
  return checked ?? { ok: true, secret: { ...base, secretKey: encodeBase32(key, { padding: false }) } };
}

function validDigits(digits: number): boolean {
  return Number.isInteger(digits) && digits >= 6 && digits <= 8;
}

function checkKeyLength(key: Buffer, minimumBits: number): SecretResult | undefined {
  if (key.length * 8 < minimumBits) return refuse(['TOTP_SECRET_TOO_SHORT', key.length * 8, minimumBits]);
  if (key.length > MAX_SECRET_BYTES) return refuse(['TOTP_SECRET_TOO_LONG', key.length, MAX_SECRET_BYTES]);
  return undefined;
}

function decodeAs(encoding: Exclude<SecretEncoding, 'otpauth'>, text: string): Buffer | undefined {
  switch (encoding) {
    case 'base32':
      return decodeBase32Text(text);
    case 'hex': {
      const digits = text.replace(/\s+/g, '').replace(/^0x/i, '');
      return /^(?:[0-9a-fA-F]{2})+$/.test(digits) ? Buffer.from(digits, 'hex') : undefined;
    }
    case 'base64':
      return text === '' ? undefined : decodeEitherBase64(text);
    case 'raw':
      // Keycloak's default: the UTF-8 bytes of the stored text are the key, spaces included (never trimmed).
      return text === '' ? undefined : Buffer.from(text, 'utf8');
  }
}

// Any case, whitespace and '-' (as apps group keys for reading) ignored, trailing padding ignored; anything else
// outside the alphabet (0, 1, 8, 9, an inner '=') refused.
function decodeBase32Text(text: string): Buffer | undefined {
  const canonical = text
    .replace(/[\s-]+/g, '')
    .toUpperCase()
    .replace(/=+$/, '');
  return canonical === '' ? undefined : decodeBase32Loose(canonical);
}

// otpauth://totp/<label>?secret=<base32>[&algorithm=][&digits=][&period=][&issuer=] (the Key URI format).
function fromOtpauthUrl(input: SecretInput, minimumBits: number): SecretResult {
  let url: URL;
  try {
    url = new URL(input.secretKey);
  } catch {
    return refuse(['TOTP_OTPAUTH_INVALID']);
  }
  if (url.protocol !== 'otpauth:') return refuse(['TOTP_OTPAUTH_INVALID']);
  if (url.host.toLowerCase() === 'hotp') return refuse(['TOTP_OTPAUTH_HOTP']);
  if (url.host.toLowerCase() !== 'totp') return refuse(['TOTP_OTPAUTH_INVALID']);
  const secretText = url.searchParams.get('secret');
  if (secretText === null) return refuse(['TOTP_OTPAUTH_INVALID']);
  const key = decodeBase32Text(secretText);
  if (key === undefined) return refuse(['TOTP_SECRET_UNDECODABLE', 'base32']);

  const algorithmParam = url.searchParams.get('algorithm')?.toUpperCase();
  if (algorithmParam !== undefined && !(totpAlgorithms as readonly string[]).includes(algorithmParam)) {
    return refuse(['TOTP_ALGORITHM_INVALID']);
  }
  const digitsParam = integerParam(url, 'digits');
  const periodParam = integerParam(url, 'period');
  if (digitsParam === null || periodParam === null) return refuse(['TOTP_OTPAUTH_INVALID']);
  if (digitsParam !== undefined && !validDigits(digitsParam)) return refuse(['TOTP_DIGITS_INVALID']);
  if (periodParam !== undefined && (periodParam < 1 || periodParam > 3600)) return refuse(['TOTP_OTPAUTH_INVALID']);
  if (algorithmParam !== undefined && input.algorithm !== undefined && algorithmParam !== input.algorithm) {
    return refuse(['TOTP_OTPAUTH_CONFLICT', 'algorithm', 'algorithm']);
  }
  if (digitsParam !== undefined && input.digits !== undefined && digitsParam !== input.digits) {
    return refuse(['TOTP_OTPAUTH_CONFLICT', 'digits', 'digits']);
  }
  if (periodParam !== undefined && input.period !== undefined && periodParam !== input.period) {
    return refuse(['TOTP_OTPAUTH_CONFLICT', 'period', 'period']);
  }
  const checked = checkKeyLength(key, minimumBits);
  if (checked) return checked;
  return {
    ok: true,
    secret: {
      secretKey: encodeBase32(key, { padding: false }),
      algorithm: (algorithmParam ?? input.algorithm ?? 'SHA1') as TotpAlgorithm,
      digits: digitsParam ?? input.digits ?? 6,
      period: periodParam ?? input.period,
    },
  };
}

// undefined when absent, null when present but not a plain decimal integer.
function integerParam(url: URL, name: string): number | undefined | null {
  const value = url.searchParams.get(name);
  if (value === null) return undefined;
  return /^[0-9]{1,9}$/.test(value) ? Number(value) : null;
}
