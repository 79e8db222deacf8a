import type { Static } from '@sinclair/typebox';
import type { UserRow } from '../../db/users-repository.js';
import type { CdiVersion } from '../../http/cdi-version.js';
import type { UserSchema } from '../../schemas/common.js';
import { recipeUserIdField, toUserObject } from '../../users/user-object.js';

// toUserObject is typed loosely (it emits several shapes); the response schema is what constrains the output.
export function wireUser(row: UserRow, cdiVersion: CdiVersion): Static<typeof UserSchema> {
  return toUserObject(row, cdiVersion) as Static<typeof UserSchema>;
}

/** `user` plus, from cdi-version 4.0, `recipeUserId` (sign-in and sign-up responses, §3). */
export function signedInBody(row: UserRow, cdiVersion: CdiVersion) {
  return { status: 'OK' as const, user: wireUser(row, cdiVersion), ...recipeUserIdField(row, cdiVersion) };
}
