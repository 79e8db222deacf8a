import type { BridgeKind } from './types.js';

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
    };
  },
};
