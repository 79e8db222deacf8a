import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

/**
 * An OpenID Connect provider on loopback, with the endpoints and answers the specifications give (OpenID Connect
 * Discovery 1.0, RFC 6749 authorization code grant, RFC 7636 PKCE S256, OpenID Connect Core id_token and UserInfo):
 *
 * - `GET /.well-known/openid-configuration` — discovery document;
 * - `GET /authorize` — signs in the account chosen by `login_hint` (no page) and redirects to `redirect_uri` with
 *   `code` and `state`;
 * - `POST /token` — form-encoded `authorization_code` grant with `client_secret` and `code_verifier`; answers
 *   `{access_token, token_type, expires_in, id_token}`, the id_token RS256-signed (jose) for the client;
 * - `GET /userinfo` — `Authorization: Bearer <access_token>`;
 * - `GET /jwks` — the public signing key.
 *
 * Codes and access tokens are single-use and short-lived as the specifications require; every refusal is the
 * RFC 6749 error body with status 400 (401 for the UserInfo endpoint).
 */
export interface FakeAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
}

interface IssuedCode {
  account: FakeAccount;
  clientId: string;
  redirectUri: string;
  codeChallenge?: string;
  nonce?: string;
  expiresAt: number;
}

export interface FakeOAuthProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Every request the provider served, as `METHOD /path`. */
  requests: string[];
  addAccount(account: FakeAccount): void;
  close(): Promise<void>;
}

export async function startFakeOAuthProvider(): Promise<FakeOAuthProvider> {
  const clientId = 'identity-core-test-client';
  const clientSecret = crypto.randomBytes(24).toString('base64url');
  const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
  const kid = crypto.randomUUID();
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, FakeAccount>();
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, { account: FakeAccount; expiresAt: number }>();
  const requests: string[] = [];
  let issuer = '';

  const json = (response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
    response.end(JSON.stringify(body));
  };
  const oauthError = (response: http.ServerResponse, error: string, description: string) =>
    json(response, 400, { error, error_description: description });

  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', issuer);
    requests.push(`${request.method} ${url.pathname}`);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const now = Date.now();

    if (request.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      return json(response, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
        grant_types_supported: ['authorization_code'],
        scopes_supported: ['openid', 'email', 'profile'],
      });
    }
    if (request.method === 'GET' && url.pathname === '/jwks') return json(response, 200, { keys: [jwk] });

    if (request.method === 'GET' && url.pathname === '/authorize') {
      const params = url.searchParams;
      const redirectUri = params.get('redirect_uri');
      if (params.get('client_id') !== clientId) return oauthError(response, 'unauthorized_client', 'unknown client_id');
      if (!redirectUri) return oauthError(response, 'invalid_request', 'redirect_uri is required');
      if (params.get('response_type') !== 'code') return oauthError(response, 'unsupported_response_type', 'only code');
      const challengeMethod = params.get('code_challenge_method');
      if (params.has('code_challenge') && challengeMethod !== 'S256') {
        return oauthError(response, 'invalid_request', 'only the S256 code_challenge_method is supported');
      }
      const account = accounts.get(params.get('login_hint') ?? '');
      const back = new URL(redirectUri);
      if (params.has('state')) back.searchParams.set('state', params.get('state')!);
      if (!account) {
        back.searchParams.set('error', 'access_denied');
      } else {
        const code = crypto.randomBytes(32).toString('base64url');
        codes.set(code, {
          account,
          clientId,
          redirectUri,
          codeChallenge: params.get('code_challenge') ?? undefined,
          nonce: params.get('nonce') ?? undefined,
          expiresAt: now + 60_000,
        });
        back.searchParams.set('code', code);
      }
      response.writeHead(302, { location: back.toString() });
      return response.end();
    }

    if (request.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (form.get('grant_type') !== 'authorization_code') return oauthError(response, 'unsupported_grant_type', 'only authorization_code');
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
        return json(response, 401, { error: 'invalid_client', error_description: 'client authentication failed' });
      }
      const code = form.get('code') ?? '';
      const issued = codes.get(code);
      codes.delete(code);
      if (!issued || issued.expiresAt < now) return oauthError(response, 'invalid_grant', 'unknown, used or expired code');
      if (form.get('redirect_uri') !== issued.redirectUri) return oauthError(response, 'invalid_grant', 'redirect_uri differs');
      if (issued.codeChallenge !== undefined) {
        const verifier = form.get('code_verifier') ?? '';
        if (crypto.createHash('sha256').update(verifier).digest('base64url') !== issued.codeChallenge) {
          return oauthError(response, 'invalid_grant', 'code_verifier does not match');
        }
      }
      const accessToken = crypto.randomBytes(32).toString('base64url');
      accessTokens.set(accessToken, { account: issued.account, expiresAt: now + 3_600_000 });
      const idToken = await new SignJWT({
        email: issued.account.email,
        email_verified: issued.account.email_verified,
        ...(issued.nonce !== undefined && { nonce: issued.nonce }),
      })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setSubject(issued.account.sub)
        .setAudience(issued.clientId)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      return json(response, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3600, id_token: idToken });
    }

    if (request.method === 'GET' && url.pathname === '/userinfo') {
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      const grant = bearer === undefined ? undefined : accessTokens.get(bearer);
      if (!grant || grant.expiresAt < now) {
        return json(response, 401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
      }
      const { sub, email, email_verified, name } = grant.account;
      return json(response, 200, { sub, email, email_verified, ...(name !== undefined && { name }) });
    }

    json(response, 404, { error: 'not_found' });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    clientId,
    clientSecret,
    requests,
    addAccount: (account) => accounts.set(account.sub, account),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
