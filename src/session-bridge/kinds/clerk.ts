import { trimSlashes, type BridgeKind } from './types.js';

// Clerk session tokens: RS256, `iss` the instance's Frontend API URL, keys at <iss>/.well-known/jwks.json, the
// user id (user_…) in `sub`. They carry no `aud` (the origin is in `azp`), so only the issuer binds them.
export const clerk: BridgeKind = {
  required: ['issuer'],
  optional: ['audience'],
  trust(read) {
    const issuer = trimSlashes(read.str('issuer')!);
    return {
      issuer,
      audience: read.str('audience'),
      jwksUrl: `${issuer}/.well-known/jwks.json`,
      jwksUrlKey: 'issuer',
      algorithms: ['RS256'],
      subjectClaims: ['sub'],
    };
  },
};
