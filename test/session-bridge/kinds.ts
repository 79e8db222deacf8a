import crypto from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { SigningAlg } from './fake-issuer.js';

// Each provider kind as its tokens really look: the source entry that trusts the fake issuer and the claim set a
// token of that provider carries. `subject` is the old user id the migration kept.

export interface KindCase {
  name: string;
  alg: SigningAlg;
  source(jwksUrl: string): Record<string, unknown>;
  claims(subject: string, nowSeconds: number): JWTPayload;
  /** The claims a token of this kind is bound by, for the wrong-issuer and wrong-audience refusals. */
  audienceClaim?: string;
}

const loopback = (jwksUrl: string) => ({ jwks_url: jwksUrl, allow_http: true });
const times = (now: number, lifetime = 3600) => ({ iat: now, exp: now + lifetime });

export const kindCases: KindCase[] = [
  {
    name: 'firebase',
    alg: 'RS256',
    source: (url) => ({ kind: 'firebase', project_id: 'acme-prod', ...loopback(url) }),
    claims: (sub, now) => ({
      iss: 'https://securetoken.google.com/acme-prod',
      aud: 'acme-prod',
      auth_time: now - 86_400 * 30,
      user_id: sub,
      sub,
      email: 'someone@example.com',
      email_verified: true,
      firebase: { identities: { email: ['someone@example.com'] }, sign_in_provider: 'password' },
      ...times(now),
    }),
  },
  {
    name: 'auth0',
    alg: 'RS256',
    source: (url) => ({ kind: 'auth0', domain: 'acme.eu.auth0.com', audience: 'https://api.acme.example', ...loopback(url) }),
    claims: (sub, now) => ({
      'https://acme.example/roles': ['editor'],
      'https://acme.example/email': 'someone@example.com',
      iss: 'https://acme.eu.auth0.com/',
      sub,
      aud: ['https://api.acme.example', 'https://acme.eu.auth0.com/userinfo'],
      azp: 'k3V9bQ2xYcZ8aR1s',
      scope: 'openid profile email offline_access',
      ...times(now, 86_400),
    }),
  },
  {
    name: 'cognito',
    alg: 'RS256',
    source: (url) => ({
      kind: 'cognito',
      region: 'eu-west-1',
      user_pool_id: 'eu-west-1_Ab12Cd34E',
      client_id: '4rtg1example0client7id',
      token_use: 'id',
      ...loopback(url),
    }),
    claims: (sub, now) => ({
      sub,
      email_verified: true,
      iss: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Ab12Cd34E',
      'cognito:username': 'someone',
      origin_jti: crypto.randomUUID(),
      aud: '4rtg1example0client7id',
      event_id: crypto.randomUUID(),
      token_use: 'id',
      auth_time: now - 600,
      jti: crypto.randomUUID(),
      email: 'someone@example.com',
      ...times(now),
    }),
  },
  {
    name: 'cognito-access',
    alg: 'RS256',
    source: (url) => ({
      kind: 'cognito',
      region: 'eu-west-1',
      user_pool_id: 'eu-west-1_Ab12Cd34E',
      client_id: '4rtg1example0client7id',
      token_use: 'access',
      ...loopback(url),
    }),
    claims: (sub, now) => ({
      sub,
      iss: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Ab12Cd34E',
      client_id: '4rtg1example0client7id',
      origin_jti: crypto.randomUUID(),
      event_id: crypto.randomUUID(),
      token_use: 'access',
      scope: 'aws.cognito.signin.user.admin',
      auth_time: now - 600,
      jti: crypto.randomUUID(),
      username: 'someone',
      ...times(now),
    }),
  },
  {
    name: 'okta',
    alg: 'RS256',
    source: (url) => ({ kind: 'okta', issuer: 'https://acme.okta.com/oauth2/default', audience: 'api://default', ...loopback(url) }),
    claims: (uid, now) => ({
      ver: 1,
      jti: `AT.${crypto.randomBytes(16).toString('base64url')}`,
      iss: 'https://acme.okta.com/oauth2/default',
      aud: 'api://default',
      cid: '0oa1example2client3',
      uid,
      scp: ['openid', 'profile', 'email'],
      auth_time: now - 600,
      sub: 'someone@example.com',
      ...times(now),
    }),
  },
  {
    name: 'clerk',
    alg: 'RS256',
    source: (url) => ({ kind: 'clerk', issuer: 'https://clerk.acme.example', ...loopback(url) }),
    claims: (sub, now) => ({
      azp: 'https://app.acme.example',
      iss: 'https://clerk.acme.example',
      nbf: now - 10,
      sid: `sess_${crypto.randomBytes(12).toString('hex')}`,
      sub,
      v: 2,
      fva: [0, -1],
      ...times(now, 60),
    }),
  },
  {
    name: 'supabase',
    alg: 'ES256',
    source: (url) => ({ kind: 'supabase', project_url: 'https://abcdefghijklmnop.supabase.co', ...loopback(url) }),
    claims: (sub, now) => supabaseClaims(sub, now),
  },
  {
    name: 'oidc',
    alg: 'PS256',
    source: (url) => ({ kind: 'oidc', issuer: 'https://id.acme.example/realms/acme', audience: 'acme-app', ...loopback(url) }),
    claims: (sub, now) => ({
      iss: 'https://id.acme.example/realms/acme',
      aud: 'acme-app',
      sub,
      typ: 'ID',
      azp: 'acme-app',
      session_state: crypto.randomUUID(),
      preferred_username: 'someone',
      ...times(now, 300),
    }),
  },
];

export function supabaseClaims(sub: string, now: number): JWTPayload {
  return {
    iss: 'https://abcdefghijklmnop.supabase.co/auth/v1',
    sub,
    aud: 'authenticated',
    email: 'someone@example.com',
    phone: '',
    app_metadata: { provider: 'email', providers: ['email'] },
    user_metadata: { email_verified: true },
    role: 'authenticated',
    aal: 'aal1',
    amr: [{ method: 'password', timestamp: now - 60 }],
    session_id: crypto.randomUUID(),
    is_anonymous: false,
    ...times(now),
  };
}
