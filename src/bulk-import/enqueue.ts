import type { RelyingParties } from '../recipes/webauthn/relying-parties.js';
import crypto from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type pg from 'pg';
import { errorMessage, jsonCoreError } from '../errors.js';
import { uniqueViolationOf } from '../db/pg-errors.js';
import { findExistingRoles, insertQueueRows } from './repository.js';
import type { PasswordHasher } from '../hashing/registry.js';
import { javaTrim } from '../normalise/java-trim.js';
import { detectConflicts } from './conflicts.js';
import { isJsonObject, type JsonObject } from './fields.js';
import { validateUser } from './validate/user.js';
import { normaliseTenantId, type SecondFactorSettings } from './validate/context.js';
import { findExistingTenantIds } from '../recipes/multitenancy/repository.js';
import { PUBLIC_TENANT } from '../recipes/multitenancy/tenant-id.js';
import type { RoleDefinition } from './role-definitions.js';
import type { Queryable } from '../db/pool.js';
import { primaryLoginMethodOf, type ImportLoginMethod, type ImportUser } from './types.js';
import type { EnqueuedUser } from './schemas.js';

export type { EnqueuedUser };

export const maxUsersPerRequest = 10000;

const USERS_BETWEEN_YIELDS = 500;

export function assertBatchSize(count: number): void {
  if (count > maxUsersPerRequest) {
    throw jsonCoreError('BULK_TOO_MANY_USERS', { error: errorMessage('BULK_TOO_MANY_USERS', maxUsersPerRequest) });
  }
}

export interface ValidatedBatch {
  users: ImportUser[];
  errors: { index: number; errors: string[] }[];
}

// The configuration's defaults (tests and tools that validate without a running core).
const defaultSettings = {
  secondFactors: { minSecretBits: 80, requireTotpFactor: true },
  declaredRoles: [],
  lazySources: new Set<string>(),
};

// Validates a whole request; roles are looked up once for all users, and those the request declares count as existing.
export async function validateBatch(
  db: Queryable,
  input: JsonObject[],
  hasher: PasswordHasher,
  now: number,
  settings: {
    secondFactors: SecondFactorSettings;
    declaredRoles: readonly RoleDefinition[];
    lazySources: { has(name: string): boolean };
    relyingParties?: RelyingParties;
  } = defaultSettings,
): Promise<ValidatedBatch> {
  const roles = new Set(await findExistingRoles(db, rolesNamedIn(input)));
  for (const { role } of settings.declaredRoles) roles.add(role);
  const context = {
    now,
    roles,
    tenants: await findTenantsNamedIn(db, input),
    hasher,
    externalUserIds: new Set<string>(),
    ids: 'generate' as const,
    secondFactors: settings.secondFactors,
    lazySources: settings.lazySources,
    relyingParties: settings.relyingParties ?? { rpIds: undefined, origins: undefined },
  };
  const batch: ValidatedBatch = { users: [], errors: [] };
  for (let index = 0; index < input.length; index++) {
    // Other requests' imports go on meanwhile: a batch of 10,000 users takes the event loop for tens of milliseconds.
    if (index > 0 && index % USERS_BETWEEN_YIELDS === 0) await setImmediate();
    const result = validateUser(input[index], context);
    if (result.ok) batch.users.push(result.user);
    else batch.errors.push({ index, errors: result.errors });
  }
  return batch;
}

export function throwIfInvalid(errors: ValidatedBatch['errors']): void {
  if (errors.length > 0) throw jsonCoreError('BULK_USERS_INVALID', { error: errorMessage('BULK_USERS_INVALID'), users: errors });
}

// [BEYOND] dry run: what the worker would say about each user, from the live database, without writing. Import
// conflicts join the validation errors of the same user, in the same body as a validation failure.
export async function dryRun(db: pg.Pool, input: JsonObject[], batch: ValidatedBatch): Promise<void> {
  const invalid = new Set(batch.errors.map(({ index }) => index));
  const validIndexes = input.map((_, index) => index).filter((index) => !invalid.has(index));
  const conflicts = await detectConflicts(db, batch.users);
  const errors = [...batch.errors];
  for (const [position, message] of conflicts) errors.push({ index: validIndexes[position], errors: [message] });
  errors.sort((a, b) => a.index - b.index);
  throwIfInvalid(errors);
}

// One INSERT for the whole request. A row id that already exists (a UUID collision) regenerates every id and retries.
export async function enqueueUsers(db: pg.Pool, users: ImportUser[], now: number): Promise<EnqueuedUser[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      await insertQueueRows(db, JSON.stringify(users), now);
      return users.map(toEnqueuedUser);
    } catch (error) {
      if (uniqueViolationOf(error) !== 'bulk_import_users__pkey' || attempt >= 3) throw error;
      for (const user of users) {
        for (const method of user.loginMethods) method.superTokensUserId = crypto.randomUUID();
        user.id = primaryLoginMethodOf(user.loginMethods).superTokensUserId;
      }
    }
  }
}

// Every login method with its generated id, in the order given; the user's id is its external id or its primary
// login method's id (AL-11.3).
export function toEnqueuedUser(user: ImportUser): EnqueuedUser {
  return { userId: user.externalUserId ?? user.id, loginMethods: user.loginMethods.map(toEnqueuedLoginMethod) };
}

function toEnqueuedLoginMethod(method: ImportLoginMethod): EnqueuedUser['loginMethods'][number] {
  const item: EnqueuedUser['loginMethods'][number] = {
    recipeId: method.recipeId,
    userId: method.superTokensUserId,
    tenants: method.tenantIds,
  };
  if (method.recipeId === 'emailpassword') item.email = method.email;
  else if (method.recipeId === 'thirdparty') {
    item.email = method.email;
    item.thirdpartyId = method.thirdPartyId;
    item.thirdpartyUserId = method.thirdPartyUserId;
  } else {
    item.email = method.email ?? null;
    item.phoneNumber = method.phoneNumber ?? null;
  }
  return item;
}

// The tenants a request names (login methods' and roles' tenantIds) that exist, and `public`: one query, none when
// only `public` is named.
export async function findTenantsNamedIn(db: Queryable, users: unknown[]): Promise<ReadonlySet<string>> {
  const named = new Set<string>();
  const add = (tenantIds: unknown) => {
    if (!Array.isArray(tenantIds)) return;
    for (const id of tenantIds) if (typeof id === 'string') named.add(normaliseTenantId(id));
  };
  for (const user of users) {
    if (!isJsonObject(user)) continue;
    for (const key of ['loginMethods', 'userRoles'] as const) {
      const items = user[key];
      if (Array.isArray(items)) for (const item of items) if (isJsonObject(item)) add(item.tenantIds);
    }
  }
  named.delete(PUBLIC_TENANT);
  return new Set([PUBLIC_TENANT, ...(await findExistingTenantIds(db, [...named]))]);
}

export function rolesNamedIn(users: unknown[]): string[] {
  const roles = new Set<string>();
  for (const user of users) {
    const userRoles = isJsonObject(user) ? user.userRoles : undefined;
    if (!Array.isArray(userRoles)) continue;
    for (const item of userRoles) if (isJsonObject(item) && typeof item.role === 'string') roles.add(javaTrim(item.role));
  }
  return [...roles];
}
