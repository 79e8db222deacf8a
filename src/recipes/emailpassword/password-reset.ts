import crypto from 'node:crypto';
import type { ServiceDependencies } from '../../services.js';
import { findLoginMethodById } from '../../users/repository.js';
import { legacyEmailKey, requireEmail } from '../../normalise/contact.js';
import { consumeResetToken, insertResetToken } from './password-reset-repository.js';
import { updateEmailPasswordUser } from './repository.js';

export type CreateResetTokenResult = { status: 'OK'; token: string } | { status: 'UNKNOWN_USER_ID_ERROR' };
export type ConsumeResetTokenResult = { status: 'OK'; userId: string; email: string } | { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
export type ResetPasswordResult = { status: 'OK'; userId: string } | { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };

const TOKEN_BYTES = 48;

/** Password reset tokens: made for an email-password user, spent once, stored only as a digest. */
export class PasswordResetService {
  constructor(private readonly deps: ServiceDependencies) {}

  async createToken(userId: string, email: string | undefined): Promise<CreateResetTokenResult> {
    const user = await findLoginMethodById(this.deps.pool, userId);
    if (user?.recipe_id !== 'emailpassword' || user.email === null) return { status: 'UNKNOWN_USER_ID_ERROR' };
    const token = crypto.randomBytes(TOKEN_BYTES).toString('base64url');
    await insertResetToken(this.deps.pool, {
      tokenHash: digest(token),
      userId: user.user_id,
      // The user's own address as stored (even by an earlier version, before the email rules), else a valid one.
      email: email === undefined || legacyEmailKey(email) === user.email ? user.email : requireEmail(email),
      expiresAt: this.deps.clock() + this.deps.config.password_reset_token_lifetime,
    });
    return { status: 'OK', token };
  }

  async consumeToken(token: string): Promise<ConsumeResetTokenResult> {
    const spent = await consumeResetToken(this.deps.pool, digest(token), this.deps.clock());
    const user = spent && (await findLoginMethodById(this.deps.pool, spent.userId));
    if (!spent || !user) return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
    // The id the app knows: the external one where a mapping exists.
    return { status: 'OK', userId: user.external_user_id ?? user.user_id, email: spent.email };
  }

  /** The older one-step form: spends the token and sets the new password. */
  async resetPassword(token: string, newPassword: string): Promise<ResetPasswordResult> {
    const spent = await consumeResetToken(this.deps.pool, digest(token), this.deps.clock());
    if (!spent) return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
    const user = await findLoginMethodById(this.deps.pool, spent.userId);
    if (user?.recipe_id !== 'emailpassword') return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
    const passwordHash = await this.deps.hasher.hash(newPassword);
    const updated = await updateEmailPasswordUser(this.deps.pool, user.user_id, { passwordHash });
    if (updated !== 'OK') return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
    return { status: 'OK', userId: user.external_user_id ?? user.user_id };
  }
}

function digest(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}
