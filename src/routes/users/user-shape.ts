import type { Static } from '@sinclair/typebox';
import { cdiAtLeast, parseCdiVersion, type CdiVersion } from '../../http/cdi-version.js';
import type { UserRow } from '../../db/users-repository.js';
import { toUserObject } from '../../users/user-object.js';
import type { UserSchema } from '../../schemas/common.js';

const cdi4 = parseCdiVersion('4.0')!;

// toUserObject is typed as a plain record; every shape it builds fits UserSchema, which the response schemas use.
export function wireUser(row: UserRow, version: CdiVersion): Static<typeof UserSchema> {
  return toUserObject(row, version) as Static<typeof UserSchema>;
}

// /user/id and /users/by-accountinfo came with cdi 4.0 and always answer the login-method shape; only the
// webauthn key (cdi >= 5.3) still depends on the version asked for.
export function atLeastCdi4(version: CdiVersion): CdiVersion {
  return cdiAtLeast(version, '4.0') ? version : cdi4;
}
