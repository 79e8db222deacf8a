import { trimSlashes, type BridgeKind } from './types.js';

// Auth0 ID and access tokens: `iss` https://<domain>/ (with the slash), keys at /.well-known/jwks.json. An access
// token's `aud` is a list (the API identifier and the tenant's /userinfo), an ID token's the client id; custom
// claims are namespaced URLs and ignored here. HS256 tokens are signed with a client secret and never accepted.
export const auth0: BridgeKind = {
  required: ['domain'],
  optional: ['audience'],
  trust(read) {
    const base = `https://${trimSlashes(read.str('domain')!.replace(/^https:\/\//, ''))}`;
    return {
      issuer: `${base}/`,
      audience: read.str('audience'),
      jwksUrl: `${base}/.well-known/jwks.json`,
      jwksUrlKey: 'domain',
      algorithms: ['RS256', 'PS256'],
      subjectClaims: ['sub'],
    };
  },
};
