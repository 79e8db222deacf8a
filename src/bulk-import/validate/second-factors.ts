import { errorMessage, type ErrorCode } from '../../errors.js';
import { javaTrim } from '../../normalise/java-trim.js';
import { FieldReader, isJsonObject, type JsonObject } from '../fields.js';
import { normaliseSecret, secretMessage } from '../../recipes/totp/secret.js';
import { parseRecoveryCodes, type Report, type StoredRecoveryCode } from '../../recipes/totp/recovery-code-format.js';
import { MAX_TOTP_DEVICES } from '../../recipes/totp/limits.js';
import type { ImportTotpDevice } from '../types.js';
import type { ValidationContext } from './context.js';

const DEVICE = ' for a totp device.';
const CODE = ' for a recovery code.';
const MAX_DEVICE_NAME = 256;
const MAX_SECRET_TEXT = 256;

// Contract M-5.7: each device's secret is normalised here (M-6), so the queue holds canonical base32 and a refusal
// names the device's problem without quoting its secret.
export function readTotpDevices(input: JsonObject, errors: string[], context: ValidationContext): ImportTotpDevice[] | undefined {
  const items = new FieldReader(errors, '.').read(input, 'totpDevices', 'array of object');
  if (items === undefined) return undefined;
  if (items.length > MAX_TOTP_DEVICES) {
    errors.push(errorMessage('BULK_TOTP_DEVICES_TOO_MANY', MAX_TOTP_DEVICES));
    return undefined;
  }
  const reader = new FieldReader(errors, DEVICE);
  const devices: ImportTotpDevice[] = [];
  const names = new Set<string>();
  items.forEach((item, index) => {
    const before = errors.length;
    const secretKey = readSecretText(item, errors);
    const period = reader.read(item, 'period', 'integer') ?? 30;
    const skew = reader.read(item, 'skew', 'integer') ?? 1;
    const rawName = reader.read(item, 'deviceName', 'string');
    const secretEncoding = reader.read(item, 'secretEncoding', 'string');
    const algorithm = reader.read(item, 'algorithm', 'string');
    const digits = reader.read(item, 'digits', 'integer');
    const lastUsedTimeStep = reader.read(item, 'lastUsedTimeStep', 'integer');
    const t0 = reader.read(item, 't0', 'integer');
    if (period < 1) errors.push(errorMessage('BULK_TOTP_PERIOD', '> 0'));
    if (period > 3600) errors.push(errorMessage('BULK_TOTP_PERIOD', '<= 3600'));
    if (skew < 0) errors.push(errorMessage('BULK_TOTP_SKEW', '>= 0'));
    if (skew > 10) errors.push(errorMessage('BULK_TOTP_SKEW', '<= 10'));
    if (t0 !== undefined && t0 !== 0) errors.push(errorMessage('BULK_TOTP_START_TIME'));
    const deviceName = rawName === undefined ? `TOTP Device ${index}` : javaTrim(rawName);
    if (deviceName.length > MAX_DEVICE_NAME) errors.push(errorMessage('BULK_TOTP_NAME_TOO_LONG', deviceName));
    else if (names.has(deviceName)) errors.push(errorMessage('BULK_TOTP_NAME_REPEATED', deviceName));
    names.add(deviceName);
    if (secretKey === undefined || errors.length > before) return;
    const explicitPeriod = Object.hasOwn(item, 'period') ? period : undefined;
    const result = normaliseSecret(
      { secretKey, secretEncoding, algorithm, digits, period: explicitPeriod },
      context.secondFactors.minSecretBits,
    );
    if (!result.ok) {
      errors.push(secretMessage(result.refusal, DEVICE));
      return;
    }
    const device: ImportTotpDevice = {
      deviceName,
      secretKey: result.secret.secretKey,
      period: result.secret.period ?? period,
      skew,
      algorithm: result.secret.algorithm,
      digits: result.secret.digits,
    };
    if (lastUsedTimeStep !== undefined) device.lastUsedTimeStep = lastUsedTimeStep;
    devices.push(device);
  });
  return devices;
}

// A secret is never echoed into a message (M-5.7 [DEVIATION]), so its type and length are checked here.
function readSecretText(item: JsonObject, errors: string[]): string | undefined {
  if (!Object.hasOwn(item, 'secretKey')) {
    errors.push(errorMessage('BULK_FIELD_REQUIRED', 'secretKey', DEVICE));
    return undefined;
  }
  const value = item.secretKey;
  if (typeof value !== 'string' || value === '') {
    errors.push(errorMessage('BULK_FIELD_TYPE', 'secretKey', 'string', DEVICE));
    return undefined;
  }
  if (value.length > MAX_SECRET_TEXT && !value.startsWith('otpauth://')) {
    errors.push(errorMessage('TOTP_SECRET_TEXT_TOO_LONG'));
    return undefined;
  }
  return value;
}

// Contract M-7: codes in clear are hashed here, so the queue never holds one; a queued row is re-read in its
// stored form (salted-sha256), which only rows the core wrote carry.
export function readRecoveryCodes(input: JsonObject, errors: string[], context: ValidationContext): StoredRecoveryCode[] | undefined {
  if (!Object.hasOwn(input, 'recoveryCodes')) return undefined;
  const report: Report = (code, ...args) => {
    errors.push((errorMessage as (code: ErrorCode, ...args: unknown[]) => string)(code, ...args));
  };
  return parseRecoveryCodes(input.recoveryCodes, {
    report,
    suffix: CODE,
    acceptStored: context.ids === 'stored',
    checkDigest: (hash) => context.hasher.importRefusal(hash, 'bcrypt'),
  });
}

// The SDK's MFA recipe reads this entry as the factors a user must complete: anything but a list of factor ids
// (null, "totp", {}) would be stored as given and read as none, so the TOTP device imported with it would not be
// asked for. `_supertokens` itself is the SDK's: an object when present.
export function checkRequiredFactors(metadata: JsonObject | undefined, errors: string[]): void {
  if (metadata === undefined || !Object.hasOwn(metadata, '_supertokens')) return;
  const supertokens = metadata._supertokens;
  if (!isJsonObject(supertokens)) {
    errors.push(errorMessage('BULK_FIELD_TYPE', 'userMetadata._supertokens', 'object', '.'));
    return;
  }
  if (!Object.hasOwn(supertokens, 'requiredSecondaryFactors')) return;
  const factors = supertokens.requiredSecondaryFactors;
  if (!Array.isArray(factors) || !factors.every((factor) => typeof factor === 'string' && factor.trim() !== '')) {
    errors.push(errorMessage('BULK_FIELD_TYPE', 'userMetadata._supertokens.requiredSecondaryFactors', 'array of string', '.'));
  }
}

// Contract M-5.8: a user imported with a TOTP device must be asked for it at sign-in, which the SDK's MFA recipe
// decides from this metadata entry. An explicit list (even []) is the import's own choice and is kept.
export function withRequiredTotp(metadata: JsonObject | undefined): JsonObject {
  const current = metadata ?? {};
  const supertokens = isJsonObject(current._supertokens) ? current._supertokens : {};
  if (Object.hasOwn(supertokens, 'requiredSecondaryFactors')) return current;
  return { ...current, _supertokens: { ...supertokens, requiredSecondaryFactors: ['totp'] } };
}
