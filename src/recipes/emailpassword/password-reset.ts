import crypto from 'node:crypto';
import type { ServiceDependencies } from '../../services.js';
import { findLoginMethodById, type LoginMethodRow } from '../../users/repository.js';
import { legacyEmailKey, requireEmail } from '../../normalise/contact.js';
import { consumeResetToken, insertResetToken } from './password-reset-repository.js';
import { updateEmailPasswordUser } from './repository.js';

export type CreateResetTokenResult = { status: 'OK'; token: string } | { status: 'UNKNOWN_USER_ID_ERROR' };
export type ConsumeResetTokenResult = { status: 'OK'; userId: string; email: string } | { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
export type ResetPasswordResult = { status: 'OK'; userId: string } | { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };

const TOKEN_BYTES = 48;

/**
 * Password reset tokens: made for an email-password user and one email, spent once, stored only as a digest. A
 * token ends when the user's email or password changes (migration 0017), and spending one checks that the user
 * still has the email it was made for, so a token never resets a user who no longer has that address.
 */
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
    const user = await this.spend(token);
    if (!user) return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
    // The id the app knows: the external one where a mapping exists.
    return { status: 'OK', userId: user.external_user_id ?? user.user_id, email: user.email };
  }

  /** The older one-step form: spends the token and sets the new password. */
  async resetPassword(token: string, newPassword: string): Promise<ResetPasswordResult> {
    const user = await this.spend(token);
    if (!user) return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
    const passwordHash = await this.deps.hasher.hash(newPassword);
    // Only if the email is still the one the token was made for: it may have changed while the password was hashed.
    const updated = await updateEmailPasswordUser(this.deps.pool, user.user_id, { passwordHash }, user.email);
    if (updated !== 'OK') return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
    return { status: 'OK', userId: user.external_user_id ?? user.user_id };
  }

  // Spends the token; the email-password user it was made for, if that user still has the token's email.
  private async spend(token: string): Promise<(LoginMethodRow & { email: string }) | undefined> {
    const spent = await consumeResetToken(this.deps.pool, digest(token), this.deps.clock());
    const user = spent && (await findLoginMethodById(this.deps.pool, spent.userId));
    if (!spent || user?.recipe_id !== 'emailpassword' || user.email !== spent.email) return undefined;
    return { ...user, email: user.email };
  }
}

function digest(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}
