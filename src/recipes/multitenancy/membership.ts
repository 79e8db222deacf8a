import type pg from 'pg';
import { withTransaction } from '../../db/transaction.js';
import { uniqueViolationOf } from '../../db/pg-errors.js';
import { findLinkState, lockGroups } from '../../account-linking/repository.js';
import { findLoginMethodById } from '../../users/repository.js';
import { addLoginMethodToTenant, removeLoginMethodFromTenant } from '../../users/login-method-repository.js';
import { deleteSessionsOfUser } from '../session/repository.js';
import { deleteRolesOfUserInTenant } from '../userroles/repository.js';
import { deleteCodesOfUserInTenant } from '../totp/repository.js';
import { deleteVerificationTokensOfUserInTenant } from '../emailverification/repository.js';

// Reasons verbatim from the reference (contract-multitenancy T-1.1).
const notAllowedReasons = {
  email: "This user's email is already associated with another user ID",
  phone: "This user's phone number is already associated with another user ID",
  tparty: "This user's third party login is already associated with another user ID",
} as const;

export type AssociateResult =
  | { status: 'OK'; wasAlreadyAssociated: boolean }
  | { status: 'UNKNOWN_USER_ID_ERROR' }
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
  | { status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' }
  | { status: 'THIRD_PARTY_USER_ALREADY_EXISTS_ERROR' }
  | { status: 'ASSOCIATION_NOT_ALLOWED_ERROR'; reason: string };

export type DisassociateResult = { status: 'OK'; wasAssociated: boolean };

const alreadyExists: Record<string, AssociateResult['status']> = {
  login_method_tenants__email_key: 'EMAIL_ALREADY_EXISTS_ERROR',
  login_method_tenants__passwordless_phone_number_key: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR',
  login_method_tenants__thirdparty_key: 'THIRD_PARTY_USER_ALREADY_EXISTS_ERROR',
};

/** M7 and M8: a login method joins or leaves a tenant, under the lock account linking takes on its user. */
export class TenantMembership {
  constructor(private readonly deps: { pool: pg.Pool; clock: () => number }) {}

  async associate(tenantId: string, id: string): Promise<AssociateResult> {
    const method = await findLoginMethodById(this.deps.pool, id);
    if (!method) return { status: 'UNKNOWN_USER_ID_ERROR' };
    try {
      return await withTransaction(this.deps.pool, async (tx) => {
        const state = await findLinkState(tx, method.user_id, true);
        if (!state) return { status: 'UNKNOWN_USER_ID_ERROR' as const };
        await lockGroups(tx, [state.group_id]);
        const added = await addLoginMethodToTenant(tx, tenantId, method.user_id);
        return { status: 'OK' as const, wasAlreadyAssociated: !added };
      });
    } catch (error) {
      const violated = uniqueViolationOf(error);
      if (violated && violated in alreadyExists) return { status: alreadyExists[violated] } as AssociateResult;
      if (violated === 'primary_account_infos__info_key') {
        const kind = await this.heldElsewhere(tenantId, method.user_id);
        return { status: 'ASSOCIATION_NOT_ALLOWED_ERROR', reason: notAllowedReasons[kind] };
      }
      throw error;
    }
  }

  async disassociate(tenantId: string, id: string): Promise<DisassociateResult> {
    const method = await findLoginMethodById(this.deps.pool, id);
    if (!method) return { status: 'OK', wasAssociated: false };
    const ids = [method.user_id, ...(method.external_user_id !== null ? [method.external_user_id] : [])];
    return withTransaction(this.deps.pool, async (tx) => {
      const state = await findLinkState(tx, method.user_id, true);
      if (state) await lockGroups(tx, [state.group_id]);
      const wasAssociated = await removeLoginMethodFromTenant(tx, tenantId, method.user_id);
      if (wasAssociated) {
        await deleteSessionsOfUser(tx, { userId: method.user_id, linked: false, tenantId, now: this.deps.clock() });
        await deleteRolesOfUserInTenant(tx, tenantId, ids);
        await deleteCodesOfUserInTenant(tx, tenantId, ids);
        await deleteVerificationTokensOfUserInTenant(tx, tenantId, method.user_id);
      }
      return { status: 'OK' as const, wasAssociated };
    });
  }

  // Which of the login method's values a primary user of the tenant other than its own holds, email first.
  private async heldElsewhere(tenantId: string, userId: string): Promise<keyof typeof notAllowedReasons> {
    const { rows } = await this.deps.pool.query<{ info_type: keyof typeof notAllowedReasons }>(
      `SELECT r.info_type FROM users u
         CROSS JOIN LATERAL (VALUES (1, 'email', u.email), (2, 'phone', u.phone_number),
                                    (3, 'tparty', u.third_party_id || '::' || u.third_party_user_id)) AS v(rank, kind, value)
         JOIN primary_account_infos r ON r.tenant_id = $1 AND r.info_type = v.kind AND r.info_value = v.value
        WHERE u.user_id = $2 AND r.group_id <> (SELECT group_id FROM user_ids WHERE user_id = $2)
        ORDER BY v.rank LIMIT 1`,
      [tenantId, userId],
    );
    return rows[0]?.info_type ?? 'email';
  }
}
