import { coreError } from '../../errors.js';
import { userExists } from '../repository.js';
import {
  allowExternalIdNamingUser,
  deleteMappingByExternalId,
  deleteMappingByUserId,
  findMappingByEitherId,
  findMappingByExternalId,
  findMappingByUserId,
  findMappingsByUserIdOrExternalId,
  insertMapping,
  updateExternalUserIdInfoByExternalId,
  updateExternalUserIdInfoByUserId,
  type UserIdMappingRow,
} from './repository.js';
import { externalIdNamesUser } from './id-rules.js';
import { withTransaction } from '../../db/transaction.js';
import { javaTrim } from '../../normalise/java-trim.js';
import type { ServiceDependencies } from '../../service-deps.js';
import { recipesHoldingDataOf, type PerUserStore } from '../per-user-store.js';
import { assertMaxLength } from '../../normalise/length-limits.js';
import type { CreateMappingResult, GetMappingResult, RemoveMappingResult, UpdateExternalUserIdInfoResult } from './schemas.js';

export type UserIdType = 'SUPERTOKENS' | 'EXTERNAL' | 'ANY';

export interface CreateMappingInput {
  superTokensUserId: string;
  externalUserId: string;
  externalUserIdInfo: string | null | undefined;
  force: boolean;
  // cdi >= 4.0: verification rows are keyed by the internal id and stay valid under the new mapping.
  keepEmailVerification: boolean;
}

function nonEmpty(field: string, value: string): string {
  const trimmed = javaTrim(value);
  if (trimmed === '') throw coreError('FIELD_EMPTY', field);
  return trimmed;
}

function optionalInfo(value: string | null | undefined): string | null {
  return value === undefined || value === null ? null : nonEmpty('externalUserIdInfo', value);
}

export function parseUserIdType(value: string | undefined): UserIdType {
  if (value === undefined) return 'ANY';
  const trimmed = javaTrim(value);
  if (trimmed === 'SUPERTOKENS' || trimmed === 'EXTERNAL' || trimmed === 'ANY') return trimmed;
  throw coreError('USER_ID_TYPE');
}

export class UserIdMappingService {
  constructor(
    private readonly deps: ServiceDependencies,
    private readonly stores: readonly PerUserStore[],
  ) {}

  async createMapping(input: CreateMappingInput): Promise<CreateMappingResult> {
    const superTokensUserId = nonEmpty('superTokensUserId', input.superTokensUserId);
    const externalUserId = nonEmpty('externalUserId', input.externalUserId);
    assertMaxLength('externalUserId', externalUserId);
    const info = optionalInfo(input.externalUserIdInfo);
    const db = this.deps.pool;

    const conflict = await this.findConflict(superTokensUserId, externalUserId, false);
    if (conflict) return conflict;
    if (!(await userExists(db, superTokensUserId))) return { status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR' };
    if (!input.force) {
      if (await externalIdNamesUser(db, externalUserId)) throw coreError('EXTERNAL_ID_IS_USER_ID');
      const recipes = await recipesHoldingDataOf(db, this.stores, superTokensUserId, this.deps.clock());
      const blocking = input.keepEmailVerification ? recipes.filter((recipe) => recipe !== 'EmailVerification') : recipes;
      if (blocking.length > 0) throw coreError('USER_ID_IN_USE', blocking[0]);
    }
    const ownConflict = await this.findConflict(superTokensUserId, externalUserId, true);
    if (ownConflict) return ownConflict;

    const inserted = await withTransaction(db, async (client) => {
      if (input.force) await allowExternalIdNamingUser(client);
      return insertMapping(client, { userId: superTokensUserId, externalUserId, info });
    });
    // A user with that id was created between the check and the insert.
    if (inserted === 'EXTERNAL_ID_NAMES_USER') throw coreError('EXTERNAL_ID_IS_USER_ID');
    // The user was removed between the existence check and the insert.
    if (inserted === 'UNKNOWN_USER') return { status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR' };
    if (inserted === 'MAPPING_EXISTS') {
      // A concurrent request won the race: answer what the checks above answer now that its mapping exists.
      const raced = await this.findConflict(superTokensUserId, externalUserId, true);
      if (raced) return raced;
      throw new Error('user id mapping insert hit a unique key, but no conflicting mapping is visible');
    }
    this.deps.log.info({ userId: superTokensUserId }, 'user id mapping created');
    return { status: 'OK' };
  }

  // The external id taken by any mapping is reported first; the internal id's own mapping only when asked, since
  // the reference checks it after user existence and the force-able 400s.
  private async findConflict(
    superTokensUserId: string,
    externalUserId: string,
    includeOwn: boolean,
  ): Promise<CreateMappingResult | undefined> {
    const mappings = await findMappingsByUserIdOrExternalId(this.deps.pool, superTokensUserId, externalUserId);
    const byExternal = mappings.find((mapping) => mapping.external_user_id === externalUserId);
    if (byExternal) {
      return {
        status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
        doesSuperTokensUserIdExist: byExternal.user_id === superTokensUserId,
        doesExternalUserIdExist: true,
      };
    }
    if (includeOwn && mappings.length > 0) {
      return { status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR', doesSuperTokensUserIdExist: true, doesExternalUserIdExist: false };
    }
    return undefined;
  }

  async getMapping(rawUserId: string, rawType: string | undefined): Promise<GetMappingResult> {
    const userId = nonEmpty('userId', rawUserId);
    const mapping = await this.findMapping(userId, parseUserIdType(rawType));
    if (!mapping) return { status: 'UNKNOWN_MAPPING_ERROR' };
    return {
      status: 'OK',
      superTokensUserId: mapping.user_id,
      externalUserId: mapping.external_user_id,
      ...(mapping.external_user_id_info !== null && { externalUserIdInfo: mapping.external_user_id_info }),
    };
  }

  private findMapping(userId: string, type: UserIdType): Promise<UserIdMappingRow | undefined> {
    if (type === 'SUPERTOKENS') return findMappingByUserId(this.deps.pool, userId);
    if (type === 'EXTERNAL') return findMappingByExternalId(this.deps.pool, userId);
    return findMappingByEitherId(this.deps.pool, userId);
  }

  // §9.3: data the app keeps under the external id (metadata, roles, TOTP, live sessions, ...) would be stranded
  // by the removal, so without `force` a store still holding some refuses it, named by the first such store.
  async removeMapping(rawUserId: string, rawType: string | undefined, force: boolean): Promise<RemoveMappingResult> {
    const userId = nonEmpty('userId', rawUserId);
    const type = parseUserIdType(rawType);
    const db = this.deps.pool;
    const mapping = await findMappingByEitherId(db, userId);
    if (!mapping) return { status: 'OK', didMappingExist: false };
    let removed: boolean;
    if (await userExists(db, mapping.external_user_id)) removed = await deleteMappingByUserId(db, mapping.user_id);
    else {
      if (!force) {
        const [recipe] = await recipesHoldingDataOf(db, this.stores, mapping.external_user_id, this.deps.clock());
        if (recipe !== undefined) throw coreError('USER_ID_IN_USE', recipe);
      }
      if (type === 'SUPERTOKENS' || (type === 'ANY' && (await userExists(db, userId)))) removed = await deleteMappingByUserId(db, userId);
      else removed = await deleteMappingByExternalId(db, userId);
    }
    if (removed) this.deps.log.info({ userId: mapping.user_id }, 'user id mapping removed');
    return { status: 'OK', didMappingExist: removed };
  }

  async updateExternalUserIdInfo(
    rawUserId: string,
    rawType: string | undefined,
    rawInfo: string | null,
  ): Promise<UpdateExternalUserIdInfoResult> {
    const userId = nonEmpty('userId', rawUserId);
    const type = parseUserIdType(rawType);
    const info = optionalInfo(rawInfo);
    const db = this.deps.pool;
    const bySuperTokensId = type === 'SUPERTOKENS' || (type === 'ANY' && (await userExists(db, userId)));
    const updated = bySuperTokensId
      ? await updateExternalUserIdInfoByUserId(db, userId, info)
      : await updateExternalUserIdInfoByExternalId(db, userId, info);
    return { status: updated ? 'OK' : 'UNKNOWN_MAPPING_ERROR' };
  }
}
