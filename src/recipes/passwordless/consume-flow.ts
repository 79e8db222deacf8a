import crypto from 'node:crypto';
import type pg from 'pg';
import { coreError } from '../../errors.js';
import { withTransaction } from '../../db/transaction.js';
import { findUserOfLoginMethod, loginMethodView, type LoginMethodRow } from '../../users/repository.js';
import { markEmailVerified } from '../emailverification/repository.js';
import {
  contactOf,
  deleteDevice,
  deleteDevicesAndFindUserByContact,
  deleteUnlockedDevicesByContact,
  findDeviceWithCodeForUpdate,
  incrementFailedAttempts,
  insertPasswordlessUser,
  lockContactOfDevice,
  type Contact,
  type DeviceRow,
} from './repository.js';
import type { ServiceDependencies } from '../../service-deps.js';
import { decodeSalt, linkCodeBytesOf, linkCodeHashOf, preAuthSessionIdOf } from './code-scheme.js';
import { decodeStandardBase64, decodeUrlSafeBase64 } from '../../base64.js';
import type { CheckResult, CodeAttemptFailure, ConsumeResult, ConsumedDevice, RedeemInput } from './types.js';

const restartFlow = { status: 'RESTART_FLOW_ERROR' } as const;

// What the caller proved, decoded before any database work (an encoding error is a 400 that writes nothing).
type Proof = { linkCodeHash: string } | { deviceIdBytes: Buffer; deviceIdHash: string; userInputCode: string };

function decodeProof(input: RedeemInput): Proof {
  if ('linkCode' in input) {
    const linkCodeBytes = decodeUrlSafeBase64(input.linkCode);
    if (!linkCodeBytes) throw coreError('INPUT_ENCODING', 'linkCode');
    return { linkCodeHash: linkCodeHashOf(linkCodeBytes) };
  }
  const deviceIdBytes = decodeStandardBase64(input.deviceId);
  if (!deviceIdBytes) throw coreError('INPUT_ENCODING', 'deviceId');
  return { deviceIdBytes, deviceIdHash: preAuthSessionIdOf(deviceIdBytes), userInputCode: input.userInputCode };
}

function consumedDeviceOf(device: DeviceRow): ConsumedDevice {
  return {
    preAuthSessionId: device.device_id_hash,
    failedCodeInputAttemptCount: device.failed_attempts,
    ...(device.email !== null && { email: device.email }),
    ...(device.phone_number !== null && { phoneNumber: device.phone_number }),
  };
}

type Verification = { status: 'OK'; device: DeviceRow } | CodeAttemptFailure;

/** Consume and check share everything up to a verified code: lookups, the preAuthSessionId check, attempt counting. */
export class CodeRedeemer {
  constructor(private readonly deps: ServiceDependencies) {}

  async check(input: RedeemInput): Promise<CheckResult> {
    const proof = decodeProof(input);
    return withTransaction(this.deps.pool, async (tx) => {
      const verified = await this.verify(tx, input, proof);
      return verified.status === 'OK' ? { status: 'OK', consumedDevice: consumedDeviceOf(verified.device) } : verified;
    });
  }

  /** One transaction: verify, delete the contact's pending devices, find or create the user, verify the email.
   * A new user costs six round trips, BEGIN and COMMIT included. */
  async consume(input: RedeemInput, options: { markEmailVerified: boolean }): Promise<ConsumeResult> {
    const proof = decodeProof(input);
    return withTransaction(this.deps.pool, async (tx) => {
      const verified = await this.verify(tx, input, proof);
      if (verified.status !== 'OK') return verified;
      const { device } = verified;
      const contact = contactOf(device);
      const verifyEmail = options.markEmailVerified && contact.kind === 'email';
      let user = await deleteDevicesAndFindUserByContact(tx, input.tenantId, contact);
      if (!user) {
        const newUser = {
          userId: crypto.randomUUID(),
          tenantId: input.tenantId,
          timeJoined: this.deps.clock(),
          contact,
          markEmailVerified: verifyEmail,
        };
        user = await insertPasswordlessUser(tx, newUser);
        // Another request created a passwordless user with this contact first; the devices stay deleted.
        if (!user) return restartFlow;
        this.deps.log.info({ userId: user.user_id }, 'passwordless user created');
        return {
          status: 'OK',
          createdNewUser: true,
          user: loginMethodView(user),
          loginMethod: user,
          consumedDevice: consumedDeviceOf(device),
        };
      }
      const other = otherContactOf(user, contact);
      if (other) await deleteUnlockedDevicesByContact(tx, input.tenantId, other);
      if (verifyEmail) {
        await markEmailVerified(tx, user.user_id, contact.value);
        user = { ...user, verified: true } satisfies LoginMethodRow;
      }
      const whole = await findUserOfLoginMethod(tx, user);
      return { status: 'OK', createdNewUser: false, user: whole, loginMethod: user, consumedDevice: consumedDeviceOf(device) };
    });
  }

  // Contract §5.1 "Attempt counting"; a failed attempt is committed, a preAuthSessionId mismatch rolls back.
  private async verify(tx: pg.PoolClient, input: RedeemInput, proof: Proof): Promise<Verification> {
    const { tenantId } = input;
    const [maxAttempts, lifetime] = await Promise.all([
      this.deps.tenantSettings.valueIn(tenantId, 'passwordless_max_code_input_attempts'),
      this.deps.tenantSettings.valueIn(tenantId, 'passwordless_code_lifetime'),
    ]);
    const located = await lockContactOfDevice(
      tx,
      tenantId,
      'linkCodeHash' in proof ? { linkCodeHash: proof.linkCodeHash } : { deviceIdHash: proof.deviceIdHash },
    );
    if (!located) return restartFlow;
    const linkCodeHash =
      'linkCodeHash' in proof
        ? proof.linkCodeHash
        : linkCodeHashOf(linkCodeBytesOf(proof.deviceIdBytes, decodeSalt(located.link_code_salt), proof.userInputCode));
    // Re-read under the row lock: the device may have changed or gone while this request waited for the contact.
    const device = await findDeviceWithCodeForUpdate(tx, tenantId, located.device_id_hash, linkCodeHash);
    if (!device) return restartFlow;
    const codeCreatedAt = device.code_created_at;
    const codeIsLive = codeCreatedAt !== null && codeCreatedAt >= this.deps.clock() - lifetime;
    if ('linkCodeHash' in proof && !codeIsLive) return restartFlow;
    if (device.device_id_hash !== input.preAuthSessionId.replace(/=/g, '')) throw coreError('PRE_AUTH_SESSION_MISMATCH');

    if (device.failed_attempts >= maxAttempts || (!codeIsLive && device.failed_attempts + 1 >= maxAttempts)) {
      await deleteDevice(tx, tenantId, device.device_id_hash);
      return restartFlow;
    }
    if (!codeIsLive) {
      await incrementFailedAttempts(tx, tenantId, device.device_id_hash);
      return {
        status: codeCreatedAt === null ? 'INCORRECT_USER_INPUT_CODE_ERROR' : 'EXPIRED_USER_INPUT_CODE_ERROR',
        failedCodeInputAttemptCount: device.failed_attempts + 1,
        maximumCodeInputAttempts: maxAttempts,
      };
    }
    return { status: 'OK', device };
  }
}

function otherContactOf(user: LoginMethodRow, used: Contact): Contact | undefined {
  if (used.kind === 'email') return user.phone_number !== null ? { kind: 'phoneNumber', value: user.phone_number } : undefined;
  return user.email !== null ? { kind: 'email', value: user.email } : undefined;
}
