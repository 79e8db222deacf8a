import type { BridgeKind } from './types.js';

// Any other OpenID Connect provider (Keycloak, Zitadel, an in-house issuer): everything is said in the config.
export const oidc: BridgeKind = {
  required: ['issuer', 'audience', 'jwks_url'],
  optional: [],
  trust(read) {
    return {
      issuer: read.str('issuer')!,
      audience: read.str('audience'),
      jwksUrl: read.str('jwks_url')!,
      jwksUrlKey: 'jwks_url',
      algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      subjectClaims: ['sub'],
    };
  },
};
