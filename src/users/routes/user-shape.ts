import { cdiAtLeast, parseCdiVersion, type CdiVersion } from '../../http/cdi-version.js';

const cdi4 = parseCdiVersion('4.0')!;

// /user/id and /users/by-accountinfo came with cdi 4.0 and always answer the login-method shape; only the
// webauthn key (cdi >= 5.3) still depends on the version asked for.
export function atLeastCdi4(version: CdiVersion): CdiVersion {
  return cdiAtLeast(version, '4.0') ? version : cdi4;
}
