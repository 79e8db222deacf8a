import type { Queryable } from '../../db/pool.js';
import type { TenantSettings } from '../../service-deps.js';
import { decodeBase32Loose } from '../../base32.js';
import { hotp, timeStep } from './code.js';
import { MAX_TOTP_DEVICES } from './limits.js';
import { MAX_SKEW } from './schemas.js';
import { findRecentCodes, insertUsedCode, isCodeSpent, type DeviceRow } from './repository.js';

export interface AttemptLimits {
  maxAttempts: number;
  cooldownMs: number;
}

/** The wrong-code limit as it applies under the tenant (its totp_max_attempts and totp_rate_limit_cooldown_sec). */
export async function attemptLimitsIn(settings: TenantSettings, tenantId: string): Promise<AttemptLimits> {
  const [maxAttempts, cooldownSec] = await Promise.all([
    settings.valueIn(tenantId, 'totp_max_attempts'),
    settings.valueIn(tenantId, 'totp_rate_limit_cooldown_sec'),
  ]);
  return { maxAttempts, cooldownMs: cooldownSec * 1000 };
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
  const matched = matchDevices(devices, code, now);
  const replay = matched !== undefined && (await isCodeSpent(db, tenantId, userId, code, now));
  const accepted = matched !== undefined && !replay;
  const lifetimeOf = (device: DeviceRow) => device.period * (2 * device.skew + 1) * 1000;
  const lifetime = matched ? lifetimeOf(matched) : Math.max(0, ...devices.map(lifetimeOf));
  await insertUsedCode(db, { tenantId, userId, code, isValid: accepted, expiryTime: now + lifetime, createdTime: now });
  return accepted ? { status: 'OK', device: matched } : invalid();
}

// Every check computes the same number of HMACs: MAX_TOTP_DEVICES slots × every step a skew of MAX_SKEW reaches,
// whatever the user holds, so neither the answer's time nor the work an attacker can cause grows with the devices
// (20,000 imported devices once cost 2 s a check). Slots without a device use a throwaway key. Devices past the
// bound (imported before it existed) are not checked.
function matchDevices(devices: DeviceRow[], code: string, now: number): DeviceRow | undefined {
  let matched: DeviceRow | undefined;
  for (let slot = 0; slot < MAX_TOTP_DEVICES; slot++) {
    const device = devices[slot];
    const key = device === undefined ? undefined : decodeBase32Loose(device.secret_key);
    const hit = key !== undefined && device !== undefined && matchesDevice(device, key, code, now);
    if (device === undefined || key === undefined) spendLikeADevice(now);
    if (hit && matched === undefined) matched = device;
  }
  return matched;
}

function matchesDevice(device: DeviceRow, key: Buffer, code: string, now: number): boolean {
  const current = timeStep(now, device.period);
  const lastUsed = device.last_used_time_step === null ? undefined : BigInt(device.last_used_time_step);
  let hit = false;
  for (let offset = -MAX_SKEW; offset <= MAX_SKEW; offset++) {
    const step = current + BigInt(offset);
    const counted = Math.abs(offset) <= device.skew && step >= 0n && (lastUsed === undefined || step > lastUsed);
    const candidate = hotp(key, step < 0n ? 0n : step, device.algorithm, device.digits);
    if (counted && code.length === device.digits && candidate === code) hit = true;
  }
  return hit;
}

const throwawayKey = Buffer.alloc(20);
function spendLikeADevice(now: number): void {
  const current = timeStep(now, 30);
  for (let offset = -MAX_SKEW; offset <= MAX_SKEW; offset++) {
    const step = current + BigInt(offset);
    hotp(throwawayKey, step < 0n ? 0n : step, 'SHA1', 6);
  }
}
