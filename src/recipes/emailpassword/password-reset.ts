import crypto from 'node:crypto';
import type { ServiceDependencies } from '../../service-deps.js';
import { findLoginMethodById, type LoginMethodRow } from '../../users/repository.js';
import { legacyEmailKey, requireEmail } from '../../normalise/contact.js';
import { consumeResetToken, insertResetToken } from './password-reset-repository.js';
import { updateEmailPasswordUser } from './repository.js';

export type CreateResetTokenResult = { status: 'OK'; token: string } | { status: 'UNKNOWN_USER_ID_ERROR' };
export type ConsumeResetTokenResult = { status: 'OK'; userId: string; email: string } | { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
export type ResetPasswordResult = { status: 'OK'; userId: string } | { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };

const TOKEN_BYTES = 48;

/**
 * Password reset tokens: made for a login method and one email, spent once, stored only as a digest. A token ends
 * when the user's email or password changes (migration 0017), and spending one made for an email-password login
 * method checks that it still has the email the token was made for, so a token never resets a user who no longer
 * has that address. As in the reference, a token may be made for a login method of another recipe when the email
 * is given: that is how a user who signed up with a provider adds a password. The two-step consume answers its id
 * and the token's email, and the SDK then creates the email-password login method (POST /recipe/signup) and links
 * it (POST /recipe/accountlinking/user/link), where the account-linking rules decide whether it may join.
 */
export class PasswordResetService {
  constructor(private readonly deps: ServiceDependencies) {}

  async createToken(tenantId: string, userId: string, email: string | undefined): Promise<CreateResetTokenResult> {
    const user = await findLoginMethodById(this.deps.pool, userId);
    if (!user) return { status: 'UNKNOWN_USER_ID_ERROR' };
    const own = user.recipe_id === 'emailpassword' ? user.email : null;
    // Without an email (cdi < 4.0) the token can only be for the login method's own password.
    if (email === undefined && own === null) return { status: 'UNKNOWN_USER_ID_ERROR' };
    const token = crypto.randomBytes(TOKEN_BYTES).toString('base64url');
    await insertResetToken(this.deps.pool, {
      tokenHash: digest(token),
      userId: user.user_id,
      // The user's own address as stored (even by an earlier version, before the email rules), else a valid one.
      email: own !== null && (email === undefined || legacyEmailKey(email) === own) ? own : requireEmail(email!),
      expiresAt: this.deps.clock() + (await this.deps.tenantSettings.valueIn(tenantId, 'password_reset_token_lifetime')),
    });
    return { status: 'OK', token };
  }

  async consumeToken(token: string): Promise<ConsumeResetTokenResult> {
    const user = await this.spend(token);
    if (!user) return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
    // The id the app knows: the external one where a mapping exists.
    return { status: 'OK', userId: user.external_user_id ?? user.user_id, email: user.email };
  }

  /**
   * The older one-step form: spends the token and sets the new password. A token made for a login method of another
   * recipe has no password to set here (the SDKs speaking this form never add one this way): it is spent and refused.
   */
  async resetPassword(token: string, newPassword: string): Promise<ResetPasswordResult> {
    const user = await this.spend(token);
    if (user?.recipe_id !== 'emailpassword') return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
    const passwordHash = await this.deps.hasher.hash(newPassword);
    // Only if the email is still the one the token was made for: it may have changed while the password was hashed.
    const updated = await updateEmailPasswordUser(this.deps.pool, user.user_id, { passwordHash }, user.email);
    if (updated !== 'OK') return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
    return { status: 'OK', userId: user.external_user_id ?? user.user_id };
  }

  // Spends the token; the login method it was made for, with the token's email. An email-password login method
  // must still have that email; one of another recipe has no password the token could reset behind its back.
  private async spend(token: string): Promise<(LoginMethodRow & { email: string }) | undefined> {
    const spent = await consumeResetToken(this.deps.pool, digest(token), this.deps.clock());
    const user = spent && (await findLoginMethodById(this.deps.pool, spent.userId));
    if (!spent || !user || (user.recipe_id === 'emailpassword' && user.email !== spent.email)) return undefined;
    return { ...user, email: spent.email };
  }
}

function digest(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}
