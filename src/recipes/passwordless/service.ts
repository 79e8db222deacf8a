import crypto from 'node:crypto';
import { coreError } from '../../errors.js';
import { withTransaction } from '../../db/transaction.js';
import { findLoginMethodById, findUserOfLoginMethod, loginMethodView } from '../../users/repository.js';
import {
  deleteCodeById,
  deleteDevice,
  deleteDevicesByContacts,
  deleteDevicesWithOnlyExpiredCodes,
  findDeviceByHash,
  findPasswordlessUserByContact,
  insertCode,
  insertDeviceWithCode,
  listDevicesWithCodes,
  lockContacts,
  type Contact,
  type DeviceFilter,
} from './repository.js';
import { contactLookup, findByContact, requireContact } from '../../normalise/contact.js';
import { assertMaxLength } from '../../normalise/length-limits.js';
import {
  decodeSalt,
  encodeDeviceId,
  encodeSalt,
  generateUserInputCode,
  issueCode,
  newDeviceSecrets,
  preAuthSessionIdOf,
  type DeviceSecrets,
} from './code-scheme.js';
import { CodeRedeemer } from './consume-flow.js';
import { updateContacts } from './contact-update.js';
import { decodeStandardBase64 } from '../../base64.js';
import type {
  CheckResult,
  CodeTarget,
  CodeToRemove,
  ConsumeResult,
  ContactUpdate,
  CreateCodeResult,
  DeviceLookup,
  DeviceView,
  FindUserResult,
  RedeemInput,
  UpdateUserResult,
  UserLookup,
} from './types.js';
import type { ServiceDependencies } from '../../service-deps.js';

// Collisions of 256-bit secrets or UUIDs do not happen; a generated 6-digit code repeating on one device can.
const maxTries = 10;

export class PasswordlessService {
  private readonly redeemer: CodeRedeemer;

  constructor(private readonly deps: ServiceDependencies) {
    this.redeemer = new CodeRedeemer(deps);
  }

  async createCode(tenantId: string, target: CodeTarget, userInputCode?: string): Promise<CreateCodeResult> {
    if (target.kind === 'deviceId') return this.addCode(tenantId, target.value, userInputCode);
    const contact = normaliseContact(target.kind, target.value);
    assertMaxLength(contact.kind, contact.value);
    const codeLifetime = await this.deps.tenantSettings.valueIn(tenantId, 'passwordless_code_lifetime');
    for (let attempt = 1; ; attempt++) {
      const secrets = newDeviceSecrets();
      const code = this.newCode(secrets, userInputCode, codeLifetime);
      if (await insertDeviceWithCode(this.deps.pool, tenantId, contact, encodeSalt(secrets.linkCodeSalt), code.row)) return code.reply;
      if (attempt === maxTries) throw new Error('could not create a passwordless device without an id collision');
    }
  }

  // Resend: another code for an existing device; the device's earlier codes stay valid.
  private async addCode(tenantId: string, deviceId: string, userInputCode?: string): Promise<CreateCodeResult> {
    const deviceIdBytes = decodeStandardBase64(deviceId);
    if (!deviceIdBytes) throw coreError('INPUT_ENCODING', 'deviceId');
    const device = await findDeviceByHash(this.deps.pool, tenantId, preAuthSessionIdOf(deviceIdBytes));
    if (!device) return { status: 'RESTART_FLOW_ERROR' };
    const secrets = { deviceIdBytes, linkCodeSalt: decodeSalt(device.link_code_salt) };
    const codeLifetime = await this.deps.tenantSettings.valueIn(tenantId, 'passwordless_code_lifetime');
    for (let attempt = 1; attempt <= maxTries; attempt++) {
      const code = this.newCode(secrets, userInputCode, codeLifetime);
      const outcome = await insertCode(this.deps.pool, tenantId, code.row);
      if (outcome === 'inserted') return code.reply;
      if (outcome === 'device-gone') return { status: 'RESTART_FLOW_ERROR' };
      // The same deviceId, salt and userInputCode give the same linkCodeHash.
      if (outcome === 'link-code-taken' && userInputCode !== undefined) return { status: 'USER_INPUT_CODE_ALREADY_USED_ERROR' };
    }
    throw new Error('could not add a passwordless code without a collision');
  }

  private newCode(secrets: DeviceSecrets, chosenUserInputCode: string | undefined, codeLifetime: number) {
    const userInputCode = chosenUserInputCode ?? generateUserInputCode();
    const { linkCode, linkCodeHash } = issueCode(secrets, userInputCode);
    const preAuthSessionId = preAuthSessionIdOf(secrets.deviceIdBytes);
    const codeId = crypto.randomUUID();
    const createdAt = this.deps.clock();
    return {
      row: { codeId, deviceIdHash: preAuthSessionId, linkCodeHash, createdAt },
      reply: {
        status: 'OK' as const,
        preAuthSessionId,
        codeId,
        deviceId: encodeDeviceId(secrets.deviceIdBytes),
        userInputCode,
        linkCode,
        timeCreated: createdAt,
        codeLifetime,
      },
    };
  }

  consumeCode(input: RedeemInput, options: { markEmailVerified: boolean }): Promise<ConsumeResult> {
    return this.redeemer.consume(input, options);
  }

  checkCode(input: RedeemInput): Promise<CheckResult> {
    return this.redeemer.check(input);
  }

  async listDevices(tenantId: string, lookup: DeviceLookup): Promise<DeviceView[]> {
    const codeLifetime = await this.deps.tenantSettings.valueIn(tenantId, 'passwordless_code_lifetime');
    const filter = deviceFilterOf(lookup);
    if (filter === undefined) return [];
    const devices = await listDevicesWithCodes(this.deps.pool, tenantId, filter);
    return devices.map((device) => ({
      preAuthSessionId: device.device_id_hash,
      failedCodeInputAttemptCount: device.failed_attempts,
      ...(device.email !== null && { email: device.email }),
      ...(device.phone_number !== null && { phoneNumber: device.phone_number }),
      codes: device.codes.map((code) => ({ codeId: code.code_id, timeCreated: code.created_at, codeLifetime })),
    }));
  }

  async removeCode(tenantId: string, target: CodeToRemove): Promise<void> {
    if ('preAuthSessionId' in target) return deleteDevice(this.deps.pool, tenantId, target.preAuthSessionId);
    await withTransaction(this.deps.pool, (tx) => deleteCodeById(tx, tenantId, target.codeId));
  }

  // A contact that breaks the rules has no devices (create code refuses it), unless an earlier version stored it.
  async removeCodesByContact(tenantId: string, kind: Contact['kind'], value: string): Promise<void> {
    const contacts = contactLookup(kind, value).keys.map((key) => ({ kind, value: key }));
    if (contacts.length === 0) return;
    await withTransaction(this.deps.pool, async (tx) => {
      await lockContacts(tx, [tenantId], contacts);
      await deleteDevicesByContacts(tx, [tenantId], contacts);
    });
  }

  updateUser(update: ContactUpdate): Promise<UpdateUserResult> {
    return updateContacts(this.deps.pool, update);
  }

  async findUser(tenantId: string, lookup: UserLookup): Promise<FindUserResult> {
    if (lookup.kind === 'userId') {
      const row = await findLoginMethodById(this.deps.pool, lookup.value);
      return row?.recipe_id === 'passwordless' ? { status: 'OK', user: loginMethodView(row) } : { status: 'UNKNOWN_USER_ID_ERROR' };
    }
    const { kind } = lookup;
    const row = await findByContact(contactLookup(kind, lookup.value), (value) =>
      findPasswordlessUserByContact(this.deps.pool, tenantId, { kind, value }),
    );
    if (row) return { status: 'OK', user: await findUserOfLoginMethod(this.deps.pool, row) };
    return { status: lookup.kind === 'email' ? 'UNKNOWN_EMAIL_ERROR' : 'UNKNOWN_PHONE_NUMBER_ERROR' };
  }

  /** The periodic sweep (contract §5.1): devices whose codes have all expired, in the tenant with the longest lifetime. */
  async deleteExpiredDevices(): Promise<number> {
    const lifetime = await this.deps.tenantSettings.longest('passwordless_code_lifetime');
    return deleteDevicesWithOnlyExpiredCodes(this.deps.pool, this.deps.clock() - lifetime);
  }
}

function normaliseContact(kind: Contact['kind'], value: string): Contact {
  return { kind, value: requireContact(kind, value) };
}

// A contact that breaks the rules is looked up under the spelling an earlier version stored (no device otherwise).
function deviceFilterOf(lookup: DeviceLookup): DeviceFilter | undefined {
  if (lookup.kind === 'email' || lookup.kind === 'phoneNumber') {
    const [key] = contactLookup(lookup.kind, lookup.value).keys;
    return key === undefined ? undefined : { kind: lookup.kind, value: key };
  }
  if (lookup.kind === 'preAuthSessionId') return { kind: 'deviceIdHash', value: lookup.value };
  const deviceIdBytes = decodeStandardBase64(lookup.value);
  if (!deviceIdBytes) throw coreError('INPUT_ENCODING', 'deviceId');
  return { kind: 'deviceIdHash', value: preAuthSessionIdOf(deviceIdBytes) };
}
