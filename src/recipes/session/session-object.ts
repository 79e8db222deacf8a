import { cdiAtLeast, type CdiVersion } from '../../http/cdi-version.js';
import type { AccessTokenClaims, JsonObject } from './access-token.js';
import type { WireSession } from './schemas.js';

export interface Session {
  handle: string;
  userId: string;
  recipeUserId: string;
  userDataInJWT: JsonObject;
  tenantId: string;
}

/** The session object of a response, in the shape of the request's cdi-version (S-4). */
export function toWireSession(session: Session, cdi: CdiVersion): WireSession {
  return {
    handle: session.handle,
    userId: session.userId,
    ...(cdiAtLeast(cdi, '4.0') && { recipeUserId: session.recipeUserId }),
    userDataInJWT: session.userDataInJWT,
    ...(cdiAtLeast(cdi, '3.0') && { tenantId: session.tenantId }),
  };
}

export function sessionOfClaims(claims: AccessTokenClaims): Session {
  return {
    handle: claims.sessionHandle,
    userId: claims.sub,
    recipeUserId: claims.rsub,
    userDataInJWT: claims.custom,
    tenantId: claims.tId,
  };
}
