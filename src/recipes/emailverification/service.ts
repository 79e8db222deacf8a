import crypto from 'node:crypto';
import type { ServiceDependencies } from '../../service-deps.js';
import { coreError } from '../../errors.js';
import { contactLookup } from '../../normalise/contact.js';
import { assertMaxLength } from '../../normalise/length-limits.js';
import { findLoginMethodById, type LoginMethodRow } from '../../users/repository.js';
import {
  consumeVerificationToken,
  deleteEmailVerifications,
  deleteExpiredVerificationTokens,
  deleteVerificationTokens,
  insertVerificationToken,
  isEmailVerified,
} from './repository.js';
import type { CreateVerificationTokenResult, VerifyEmailResult } from './schemas.js';

// The reference core's token: 48 random bytes, base64url (64 characters).
const TOKEN_BYTES = 48;

/** The email of a (user, email) pair as stored, and every spelling it may have been stored under. */
interface PairEmail {
  email: string;
  keys: string[];
}

/**
 * Email verification: a set of (user, email) pairs, app-wide, and tokens that add a pair when spent, each made and
 * spent in one tenant. Pairs and tokens are keyed by the internal user id, so a user-id mapping made or removed later changes nothing; either id is accepted.
 */
export class EmailVerificationService {
  constructor(private readonly deps: ServiceDependencies) {}

  async createToken(tenantId: string, userId: string, rawEmail: string): Promise<CreateVerificationTokenResult> {
    const user = await findLoginMethodById(this.deps.pool, userId);
    // The reference accepts any string; here a pair references its user (and goes with it), so there must be one.
    if (!user) throw coreError('EMAIL_VERIFICATION_UNKNOWN_USER');
    const { email, keys } = pairEmail(user, rawEmail);
    if (await isEmailVerified(this.deps.pool, user.user_id, keys)) return { status: 'EMAIL_ALREADY_VERIFIED_ERROR' };
    const now = this.deps.clock();
    await deleteExpiredVerificationTokens(this.deps.pool, now);
    const token = crypto.randomBytes(TOKEN_BYTES).toString('base64url');
    await insertVerificationToken(this.deps.pool, {
      tokenHash: digest(token),
      tenantId,
      userId: user.user_id,
      email,
      expiresAt: now + (await this.deps.tenantSettings.valueIn(tenantId, 'email_verification_token_lifetime')),
    });
    return { status: 'OK', token };
  }

  async verifyEmail(tenantId: string, token: string): Promise<VerifyEmailResult> {
    const spent = await consumeVerificationToken(this.deps.pool, tenantId, digest(token), this.deps.clock());
    if (!spent || spent.expired) return { status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' };
    return { status: 'OK', userId: spent.userId, email: spent.email };
  }

  // Lookups and removals: an address no pair can hold is simply not verified (see contactLookup).
  async isVerified(userId: string, rawEmail: string): Promise<boolean> {
    const user = await findLoginMethodById(this.deps.pool, userId);
    const { keys } = contactLookup('email', rawEmail);
    return user !== undefined && isEmailVerified(this.deps.pool, user.user_id, keys);
  }

  async unverify(userId: string, rawEmail: string): Promise<void> {
    const user = await findLoginMethodById(this.deps.pool, userId);
    const { keys } = contactLookup('email', rawEmail);
    if (user) await deleteEmailVerifications(this.deps.pool, user.user_id, keys);
  }

  async revokeTokens(tenantId: string, userId: string, rawEmail: string): Promise<void> {
    const user = await findLoginMethodById(this.deps.pool, userId);
    const { keys } = contactLookup('email', rawEmail);
    if (user) await deleteVerificationTokens(this.deps.pool, tenantId, user.user_id, keys);
  }
}

/**
 * The user's own address as stored (even by an earlier version, before the email rules), else a valid email:
 * an address that breaks the rules is a 400 naming `email`, whether or not the user exists.
 */
function pairEmail(user: LoginMethodRow | undefined, raw: string): PairEmail {
  const lookup = contactLookup('email', raw);
  if (user?.email != null && lookup.keys.includes(user.email)) return { email: user.email, keys: lookup.keys };
  if (lookup.refusal) throw lookup.refusal;
  assertMaxLength('email', lookup.keys[0]);
  return { email: lookup.keys[0], keys: lookup.keys };
}

function digest(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}
