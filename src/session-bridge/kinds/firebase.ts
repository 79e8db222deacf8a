import type { BridgeKind } from './types.js';

// Firebase's rule: `iat` must be in the past. Clocks differ a little; a minute of skew is allowed.
export const FIREBASE_IAT_SKEW_SECONDS = 60;

// Firebase Authentication / Identity Platform ID tokens: RS256, `iss` https://securetoken.google.com/<project>,
// `aud` the project id, the uid in `sub`; Google publishes the keys for every project at one address.
const GOOGLE_SECURETOKEN_JWKS = 'https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com';

export const firebase: BridgeKind = {
  required: ['project_id'],
  optional: [],
  trust(read) {
    const project = read.str('project_id')!;
    return {
      issuer: `https://securetoken.google.com/${project}`,
      audience: project,
      jwksUrl: GOOGLE_SECURETOKEN_JWKS,
      jwksUrlKey: 'jwks_url',
      algorithms: ['RS256'],
      subjectClaims: ['sub'],
      check: (claims, now) => {
        if (typeof claims.iat !== 'number') return 'malformed';
        return claims.iat > now / 1000 + FIREBASE_IAT_SKEW_SECONDS ? 'not_yet_valid' : undefined;
      },
    };
  },
};
