import { trimSlashes, type BridgeKind } from './types.js';

// Okta tokens: RS256, `iss` the authorization server. A custom server (…/oauth2/<id>) publishes its keys at
// <iss>/v1/keys, the org server at <iss>/oauth2/v1/keys. ID tokens carry the user id (00u…) in `sub`; access tokens
// carry the login in `sub` and the user id in `uid`, so `uid` wins when present.
export const okta: BridgeKind = {
  required: ['issuer', 'audience'],
  optional: [],
  trust(read) {
    const issuer = trimSlashes(read.str('issuer')!);
    const customServer = /^[a-z]+:\/\/[^/]+\/oauth2\//.test(`${issuer}/`);
    return {
      issuer,
      audience: read.str('audience'),
      jwksUrl: customServer ? `${issuer}/v1/keys` : `${issuer}/oauth2/v1/keys`,
      jwksUrlKey: 'issuer',
      algorithms: ['RS256'],
      subjectClaims: ['uid', 'sub'],
    };
  },
};
