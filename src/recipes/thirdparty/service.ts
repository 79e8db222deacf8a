import crypto from 'node:crypto';
import type { Queryable } from '../../db/pool.js';
import { uniqueViolationOf } from '../../db/pg-errors.js';
import { withTransaction } from '../../db/transaction.js';
import {
  findLoginMethodById,
  findLoginMethodByInternalId,
  findUserOfLoginMethod,
  loginMethodView,
  type StoredUser,
} from '../../users/repository.js';
import type { SignedIn } from '../../users/user-object.js';
import { findThirdPartyUser, findThirdPartyUsersByEmail, lockThirdPartyUser } from './repository.js';
import { insertThirdPartyLoginMethodIfAbsent, updateLoginMethodEmail } from '../../users/login-method-repository.js';
import { markEmailVerified } from '../emailverification/repository.js';
import { assertMaxLength } from '../../normalise/length-limits.js';
import { checkEmail, contactLookup, legacyEmailKey, requireEmail } from '../../normalise/contact.js';
import type { ServiceDependencies } from '../../service-deps.js';

export interface SignInUpInput {
  tenantId: string;
  thirdPartyId: string;
  thirdPartyUserId: string;
  email: string;
  isVerified: boolean;
}

export type SignInUpResult =
  | ({ status: 'OK'; createdNewUser: boolean } & SignedIn)
  | { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR'; reason: typeof emailHeldByAnotherPrimaryUser };

const emailHeldByAnotherPrimaryUser = 'Email already associated with another primary user.';
export type GetThirdPartyUserResult =
  { status: 'OK'; user: StoredUser } | { status: 'UNKNOWN_USER_ID_ERROR' } | { status: 'UNKNOWN_THIRD_PARTY_USER_ERROR' };

// A row can vanish between the insert and the read only if the user is removed at that moment; a retry then
// creates it afresh.
const maxSignInUpAttempts = 3;

export class ThirdPartyService {
  constructor(private readonly deps: ServiceDependencies) {}

  async signInUp(input: SignInUpInput): Promise<SignInUpResult> {
    assertMaxLength('thirdPartyId', input.thirdPartyId);
    assertMaxLength('thirdPartyUserId', input.thirdPartyUserId);
    const email = await this.emailToStore(input);
    assertMaxLength('email', email);
    for (let attempt = 1; attempt <= maxSignInUpAttempts; attempt++) {
      let result: SignInUpResult | undefined;
      try {
        result = await withTransaction(this.deps.pool, (client) => this.signInUpOnce(client, { ...input, email }));
      } catch (error) {
        // Only the email update can collide: the login method is linked and another primary user holds the new
        // email (AL-10.2). The transaction is rolled back, so nothing changed.
        if (uniqueViolationOf(error) === 'primary_account_infos__info_key') {
          return { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: emailHeldByAnotherPrimaryUser };
        }
        throw error;
      }
      if (!result) continue;
      if (result.status === 'OK' && result.createdNewUser)
        this.deps.log.info({ userId: result.loginMethod.user_id, thirdPartyId: input.thirdPartyId }, 'third-party user created');
      return result;
    }
    throw new Error('third-party user disappeared during sign-in-up on every attempt');
  }

  // A returning user whose address an earlier version stored although the rules now refuse it keeps signing in,
  // as long as the provider still sends that same address.
  private async emailToStore(input: SignInUpInput): Promise<string> {
    const check = checkEmail(input.email);
    if (check.ok) return check.value;
    const existing = await findThirdPartyUser(this.deps.pool, input.tenantId, input.thirdPartyId, input.thirdPartyUserId);
    if (existing?.email === legacyEmailKey(input.email)) return existing.email;
    return requireEmail(input.email);
  }

  private async signInUpOnce(client: Queryable, input: SignInUpInput): Promise<SignInUpResult | undefined> {
    const userId = crypto.randomUUID();
    const created = await insertThirdPartyLoginMethodIfAbsent(client, { ...input, userId, timeJoined: this.deps.clock() });
    const existing = created
      ? { user_id: userId, email: input.email }
      : await lockThirdPartyUser(client, input.tenantId, input.thirdPartyId, input.thirdPartyUserId);
    if (!existing) return undefined;
    if (existing.email !== input.email) await updateLoginMethodEmail(client, existing.user_id, input.email);
    if (input.isVerified) await markEmailVerified(client, existing.user_id, input.email);
    const loginMethod = await findLoginMethodByInternalId(client, existing.user_id);
    return loginMethod && { status: 'OK', createdNewUser: created, user: await findUserOfLoginMethod(client, loginMethod), loginMethod };
  }

  // Either id; a user of another recipe is unknown here.
  async findUser(id: string): Promise<GetThirdPartyUserResult> {
    const row = await findLoginMethodById(this.deps.pool, id);
    return row?.recipe_id === 'thirdparty' ? { status: 'OK', user: loginMethodView(row) } : { status: 'UNKNOWN_USER_ID_ERROR' };
  }

  async findUserByThirdPartyId(tenantId: string, thirdPartyId: string, thirdPartyUserId: string): Promise<GetThirdPartyUserResult> {
    const row = await findThirdPartyUser(this.deps.pool, tenantId, thirdPartyId, thirdPartyUserId);
    return row ? { status: 'OK', user: await findUserOfLoginMethod(this.deps.pool, row) } : { status: 'UNKNOWN_THIRD_PARTY_USER_ERROR' };
  }

  // Whole users, each once even when two of its third-party login methods share the email (AL-10.7).
  async listUsersByEmail(tenantId: string, email: string): Promise<{ status: 'OK'; users: StoredUser[] }> {
    const lookup = contactLookup('email', email);
    const users = new Map<string, StoredUser>();
    for (const key of lookup.keys) {
      for (const row of await findThirdPartyUsersByEmail(this.deps.pool, tenantId, key)) {
        const user = await findUserOfLoginMethod(this.deps.pool, row);
        users.set(user.group_id, user);
      }
    }
    return { status: 'OK', users: [...users.values()].sort((a, b) => a.time_joined - b.time_joined) };
  }
}
