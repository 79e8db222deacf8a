import type { PerUserStore } from './users/per-user-store.js';
import { sessionStore } from './recipes/session/per-user-store.js';
import { userMetadataStore } from './recipes/usermetadata/per-user-store.js';
import { userRolesStore } from './recipes/userroles/per-user-store.js';
import { emailVerificationStore } from './recipes/emailverification/per-user-store.js';
import { totpStore } from './recipes/totp/per-user-store.js';
import { webauthnRecoveryTokenStore } from './recipes/webauthn/per-user-store.js';

/**
 * Every store keeping data under a user id beside the login methods. User removal empties them for the ids that go,
 * and the user-id mapping routes refuse (without `force`) while one holds data of the id; a new store adds itself
 * here and nowhere else. In the order the reference asks them, which decides the recipe a refusal names.
 */
export const perUserStores: readonly PerUserStore[] = [
  sessionStore,
  userMetadataStore,
  userRolesStore,
  emailVerificationStore,
  totpStore,
  webauthnRecoveryTokenStore,
];
