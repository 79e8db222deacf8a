import { trimSlashes, type BridgeKind } from './types.js';

// Supabase Auth access tokens: `iss` <project url>/auth/v1, `aud` authenticated, the user's uuid in `sub`. Projects on
// asymmetric signing keys publish them at /auth/v1/.well-known/jwks.json (RS256 or ES256); projects still on the
// legacy shared secret sign HS256 with it, accepted only when `jwt_secret` is configured.
export const supabase: BridgeKind = {
  required: ['project_url'],
  optional: ['jwt_secret', 'audience'],
  trust(read) {
    const base = trimSlashes(read.str('project_url')!);
    const secret = read.str('jwt_secret');
    return {
      issuer: `${base}/auth/v1`,
      audience: read.str('audience') ?? 'authenticated',
      jwksUrl: `${base}/auth/v1/.well-known/jwks.json`,
      jwksUrlKey: 'project_url',
      algorithms: ['RS256', 'ES256'],
      ...(secret !== undefined && { hmacSecret: new TextEncoder().encode(secret) }),
      subjectClaims: ['sub'],
    };
  },
};
