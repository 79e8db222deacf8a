import { formatLazyPointer } from '../../hashing/lazy-pointer.js';
import type { LoginMethod } from '../bulk-user.js';
import { compact } from './assemble.js';

/**
 * An email-password login method whose password the core adopts at the first sign-in, by asking `source` (a source
 * configured in the target core's `lazy_migration` block). `login` is what the old provider expects as user name when
 * it is not the email; `legacyUserId` makes the core refuse an answer about another user.
 */
export function pendingMethod(
  source: string,
  email: string | undefined,
  common: Partial<LoginMethod>,
  pointer: { login?: string; legacyUserId?: string } = {},
): LoginMethod {
  const passwordHash = formatLazyPointer({ source, legacyLogin: pointer.login, legacyUserId: pointer.legacyUserId });
  return compact({ recipeId: 'emailpassword' as const, email, passwordHash, hashingAlgorithm: 'lazy', ...common });
}
