import { cdiAtLeast, type CdiVersion } from '../../http/cdi-version.js';
import type { LoginRecipe } from '../../http/route.js';

export const passwordlessFactors = ['otp-email', 'otp-phone', 'link-email', 'link-phone'];

// The first factors that stand for each login recipe in the older APIs' per-recipe switches.
export const recipeFactors: Record<LoginRecipe, readonly string[]> = {
  emailpassword: ['emailpassword'],
  thirdparty: ['thirdparty'],
  passwordless: passwordlessFactors,
};

/** Whether the tenant's firstFactors enable the recipe in the older shape: unset enables every recipe. */
export function enabledByFactors(firstFactors: readonly string[] | null | undefined, recipe: LoginRecipe): boolean {
  return firstFactors == null || firstFactors.some((factor) => recipeFactors[recipe].includes(factor));
}

/**
 * The reference's recipe gate (contract-multitenancy T-3): SDKs from cdi 5.1 filter by firstFactors themselves and
 * are never refused; at 5.0 only a tenant with no first factor at all refuses; below, a tenant whose factors lack the
 * recipe's.
 */
export function loginEnabled(firstFactors: readonly string[] | null | undefined, recipe: LoginRecipe, version: CdiVersion): boolean {
  if (cdiAtLeast(version, '5.1')) return true;
  if (cdiAtLeast(version, '5.0')) return firstFactors == null || firstFactors.length > 0;
  return enabledByFactors(firstFactors, recipe);
}
