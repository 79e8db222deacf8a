import { coreError } from '../../errors.js';

const authRecipeIds = new Set(['emailpassword', 'thirdparty', 'passwordless', 'webauthn']);
// Recipe ids the reference knows; the non-auth ones are accepted and match no user.
const knownRecipeIds = new Set([
  ...authRecipeIds,
  'webauthn',
  'session',
  'emailverification',
  'jwt',
  'usermetadata',
  'userroles',
  'useridmapping',
  'dashboard',
  'totp',
  'multitenancy',
  'accountlinking',
  'mfa',
  'oauth',
]);

// `includeRecipeIds`: a comma list, items trimmed, empties dropped, compared case-insensitively (contract §8.3).
// Returns the auth recipes to keep, or undefined when the list does not restrict anything.
export function parseIncludeRecipeIds(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) return undefined;
  for (const item of items) if (!knownRecipeIds.has(item.toLowerCase())) throw coreError('UNKNOWN_RECIPE_ID', item);
  return [...new Set(items.map((item) => item.toLowerCase()).filter((item) => authRecipeIds.has(item)))];
}
