import type { JWTPayload } from 'jose';
import { BlockConfigError } from '../../config/block-reader.js';
import type { BridgeKind, InvalidCause } from './types.js';

// Amazon Cognito user pool tokens: RS256, `iss` https://cognito-idp.<region>.amazonaws.com/<pool id>, keys at
// <iss>/.well-known/jwks.json. Both token types carry `token_use`; an ID token names the app client in `aud`, an
// access token (which has no `aud`) in `client_id`. The user's `sub` is the old id the migration keeps.
export const cognito: BridgeKind = {
  required: ['region', 'user_pool_id', 'client_id', 'token_use'],
  optional: [],
  trust(read) {
    const issuer = `https://cognito-idp.${read.str('region')}.amazonaws.com/${read.str('user_pool_id')}`;
    const clientId = read.str('client_id')!;
    const tokenUse = read.str('token_use');
    if (tokenUse !== 'id' && tokenUse !== 'access') throw new BlockConfigError(`'${read.path}.token_use' must be id or access`);
    return {
      issuer,
      audience: tokenUse === 'id' ? clientId : undefined,
      jwksUrl: `${issuer}/.well-known/jwks.json`,
      jwksUrlKey: 'region',
      algorithms: ['RS256'],
      subjectClaims: ['sub'],
      check: (claims: JWTPayload): InvalidCause | undefined => {
        if (claims.token_use !== tokenUse) return 'wrong_token_use';
        if (tokenUse === 'access' && claims.client_id !== clientId) return 'wrong_audience';
        return undefined;
      },
    };
  },
};
