import type { Queryable } from '../../db/pool.js';
import { decodeBase32Loose } from '../../base32.js';
import { hotp, timeStep } from './code.js';
import { findRecentCodes, insertUsedCode, isCodeSpent, type DeviceRow } from './repository.js';

export interface AttemptLimits {
  maxAttempts: number;
  cooldownMs: number;
}

export type Counts = { currentNumberOfFailedAttempts: number; maxNumberOfFailedAttempts: number };
export type VerifyOutcome =
  | { status: 'OK'; device: DeviceRow }
  | ({ status: 'INVALID_TOTP_ERROR' } & Counts)
  | ({ status: 'LIMIT_REACHED_ERROR'; retryAfterMs: number } & Counts);

export type Gate = { locked: true; outcome: VerifyOutcome } | { locked: false; failures: number };

/**
 * Steps 1–3 of M-5.3: how many wrong codes in a row precede this attempt, counted back from the newest failure (not
 * from now, as the reference does), and whether they lock it. Recovery codes share this ledger and limit (M-7).
 */
export async function checkAttemptLimit(
  db: Queryable,
  tenantId: string,
  userId: string,
  now: number,
  limits: AttemptLimits,
): Promise<Gate> {
  const { maxAttempts: n, cooldownMs: c } = limits;
  const recent = await findRecentCodes(db, tenantId, userId, n);
  const firstValid = recent.findIndex((row) => row.is_valid);
  const failures = firstValid === -1 ? recent : recent.slice(0, firstValid);
  if (failures.length === 0) return { locked: false, failures: 0 };
  const newest = Number(failures[0].created_time);
  const k = failures.filter((row) => Number(row.created_time) > newest - c).length;
  if (k < n) return { locked: false, failures: k };
  if (now - newest < c) {
    const outcome: VerifyOutcome = {
      status: 'LIMIT_REACHED_ERROR',
      retryAfterMs: c - (now - newest),
      currentNumberOfFailedAttempts: n,
      maxNumberOfFailedAttempts: n,
    };
    return { locked: true, outcome };
  }
  return { locked: false, failures: 0 };
}

/**
 * Steps 4–7 of M-5.3 over the candidate devices: a code matches a device when it equals the code of a time step
 * within ±skew of now that is after the device's imported last-used step, and was not already accepted (a replay).
 * Every attempt of 8 characters or fewer is recorded; the caller holds the user's lock.
 */
export async function verifyCode(
  db: Queryable,
  input: { tenantId: string; userId: string; code: string; now: number; devices: DeviceRow[]; failures: number; maxAttempts: number },
): Promise<VerifyOutcome> {
  const { tenantId, userId, code, now, devices } = input;
  const invalid = (): VerifyOutcome => ({
    status: 'INVALID_TOTP_ERROR',
    currentNumberOfFailedAttempts: input.failures + 1,
    maxNumberOfFailedAttempts: input.maxAttempts,
  });
  if (code.length > 8) return invalid();
  const matched = devices.find((device) => matchesDevice(device, code, now));
  const replay = matched !== undefined && (await isCodeSpent(db, tenantId, userId, code, now));
  const accepted = matched !== undefined && !replay;
  const lifetimeOf = (device: DeviceRow) => device.period * (2 * device.skew + 1) * 1000;
  const lifetime = matched ? lifetimeOf(matched) : Math.max(0, ...devices.map(lifetimeOf));
  await insertUsedCode(db, { tenantId, userId, code, isValid: accepted, expiryTime: now + lifetime, createdTime: now });
  return accepted ? { status: 'OK', device: matched } : invalid();
}

function matchesDevice(device: DeviceRow, code: string, now: number): boolean {
  if (code.length !== device.digits) return false;
  const key = decodeBase32Loose(device.secret_key);
  if (key === undefined) return false;
  const current = timeStep(now, device.period);
  const lastUsed = device.last_used_time_step === null ? undefined : BigInt(device.last_used_time_step);
  for (let offset = -device.skew; offset <= device.skew; offset++) {
    const step = current + BigInt(offset);
    if (step < 0n || (lastUsed !== undefined && step <= lastUsed)) continue;
    if (hotp(key, step, device.algorithm, device.digits) === code) return true;
  }
  return false;
}
