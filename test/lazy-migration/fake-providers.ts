import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SourceKind } from '../../src/lazy-migration/config.js';

// Loopback stand-ins for the old providers, answering the request and error shapes each one documents.

export interface FakeAccount {
  login: string;
  password: string;
  id: string;
  state?: 'active' | 'disabled' | 'mfa' | 'temporary-password' | 'unconfirmed';
}

export type FakeMode = 'normal' | 'throttled' | 'down' | 'bad-credentials' | 'odd-answer';

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export const fakeSecrets = {
  firebaseApiKey: 'fake-web-api-key',
  auth0ClientId: 'fake-client',
  auth0ClientSecret: 'fake-client-secret',
  auth0Realm: 'Username-Password-Authentication',
  cognitoClientId: 'fakeclientid123',
  cognitoClientSecret: 'fake-cognito-secret',
  oktaApiToken: 'fake-okta-token',
  supabaseApiKey: 'fake-anon-key',
  hookToken: 'fake-hook-token',
  hookHmacSecret: 'fake-hmac-secret',
};

export class FakeProvider {
  readonly accounts = new Map<string, FakeAccount>();
  readonly requests: RecordedRequest[] = [];
  mode: FakeMode = 'normal';
  latencyMs = 0;
  /** The webhook's Retry-After while throttled. */
  retryAfter: string | undefined;
  /** Successes leave out the user's id (a provider answering in a shape we cannot check). */
  omitUserId = false;
  /** The webhook names the user's old id in its match answer (optional in its contract). */
  webhookSendsUserId = false;
  private server!: http.Server;
  url = '';

  constructor(readonly kind: SourceKind) {}

  static async start(kind: SourceKind, accounts: FakeAccount[] = []): Promise<FakeProvider> {
    const fake = new FakeProvider(kind);
    for (const account of accounts) fake.accounts.set(account.login, account);
    fake.server = http.createServer((request, response) => void fake.handle(request, response));
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  get calls(): number {
    return this.requests.length;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    this.requests.push({ path: request.url ?? '', headers: request.headers, body });
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    if (response.destroyed) return;
    if (this.mode === 'down') return send(response, 502, { message: 'bad gateway' });
    const answer = this.answer(request, body);
    send(response, answer.status, answer.body, answer.headers);
  }

  private answer(request: http.IncomingMessage, body: string): Answer {
    switch (this.kind) {
      case 'webhook':
        return this.webhook(request, body);
      case 'firebase':
        return this.firebase(request, body);
      case 'auth0':
        return this.auth0(request, body);
      case 'cognito':
        return this.cognito(request, body);
      case 'okta':
        return this.okta(request, body);
      case 'supabase':
        return this.supabase(request, body);
    }
  }

  private check(login: string, password: string): { account?: FakeAccount; right: boolean } {
    const account = this.accounts.get(login);
    return { account, right: account !== undefined && account.password === password };
  }

  // Kratos-shaped password migration hook, authenticated by a bearer token and an HMAC signature.
  private webhook(request: http.IncomingMessage, body: string): Answer {
    if (request.headers.authorization !== `Bearer ${fakeSecrets.hookToken}` || this.mode === 'bad-credentials')
      return { status: 401, body: { error: 'unauthorized' } };
    const timestamp = String(request.headers['x-identitycore-timestamp'] ?? '');
    const expected = crypto.createHmac('sha256', fakeSecrets.hookHmacSecret).update(`${timestamp}.${body}`).digest('hex');
    const given = String(request.headers['x-identitycore-signature'] ?? '');
    if (given !== `v1=${expected}`) return { status: 401, body: { error: 'bad signature' } };
    if (this.mode === 'throttled') return { status: 429, body: {}, headers: { 'retry-after': this.retryAfter ?? '7' } };
    if (this.mode === 'odd-answer') return { status: 200, body: { ok: true } };
    const { identifier, password } = JSON.parse(body) as { identifier: string; password: string };
    const { account, right } = this.check(identifier, password);
    if (!account) return { status: 200, body: { status: 'user_not_found' } };
    if (right && account.state === 'mfa') return { status: 200, body: { status: 'password_match', secondFactors: ['totp', 'webauthn'] } };
    if (right && this.webhookSendsUserId) return { status: 200, body: { status: 'password_match', userId: account.id } };
    return { status: 200, body: { status: right ? 'password_match' : 'password_mismatch' } };
  }

  private firebase(request: http.IncomingMessage, body: string): Answer {
    const url = new URL(request.url ?? '/', 'http://fake');
    if (url.pathname !== '/v1/accounts:signInWithPassword') return { status: 404, body: {} };
    if (url.searchParams.get('key') !== fakeSecrets.firebaseApiKey || this.mode === 'bad-credentials') {
      return firebaseError('API key not valid. Please pass a valid API key.');
    }
    if (this.mode === 'throttled')
      return firebaseError('TOO_MANY_ATTEMPTS_TRY_LATER : Access to this account has been temporarily disabled');
    const { email, password } = JSON.parse(body) as { email: string; password: string };
    const { account, right } = this.check(email, password);
    if (!account) return firebaseError('EMAIL_NOT_FOUND');
    if (account.state === 'disabled') return firebaseError('USER_DISABLED');
    if (!right) return firebaseError('INVALID_PASSWORD');
    if (this.mode === 'odd-answer') return { status: 200, body: { localId: account.id } };
    if (account.state === 'mfa') {
      const mfaInfo = [{ mfaEnrollmentId: 'e1', phoneInfo: '+1*******234', enrolledAt: '2024-01-01T00:00:00Z' }];
      return { status: 200, body: { localId: account.id, mfaPendingCredential: 'pending', mfaInfo } };
    }
    return {
      status: 200,
      body: {
        localId: this.omitUserId ? undefined : account.id,
        email,
        idToken: 'token',
        refreshToken: 'refresh',
        expiresIn: '3600',
        registered: true,
      },
    };
  }

  private auth0(request: http.IncomingMessage, body: string): Answer {
    if (request.url !== '/oauth/token') return { status: 404, body: {} };
    if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
      return { status: 400, body: { error: 'invalid_request' } };
    const form = new URLSearchParams(body);
    if (
      form.get('client_id') !== fakeSecrets.auth0ClientId ||
      form.get('client_secret') !== fakeSecrets.auth0ClientSecret ||
      this.mode === 'bad-credentials'
    ) {
      return { status: 401, body: { error: 'access_denied', error_description: 'Unauthorized' } };
    }
    if (form.get('grant_type') !== 'http://auth0.com/oauth/grant-type/password-realm' || form.get('realm') !== fakeSecrets.auth0Realm) {
      return { status: 400, body: { error: 'invalid_request', error_description: 'connection not found' } };
    }
    if (this.mode === 'throttled') return { status: 429, body: { error: 'too_many_attempts', error_description: 'blocked' } };
    const { account, right } = this.check(form.get('username') ?? '', form.get('password') ?? '');
    if (!account || !right) return { status: 403, body: { error: 'invalid_grant', error_description: 'Wrong email or password.' } };
    if (account.state === 'disabled') return { status: 403, body: { error: 'invalid_grant', error_description: 'user is blocked' } };
    if (account.state === 'mfa')
      return { status: 403, body: { error: 'mfa_required', error_description: 'Multifactor authentication required', mfa_token: 'x' } };
    if (this.mode === 'odd-answer') return { status: 200, body: { token_type: 'Bearer' } };
    return {
      status: 200,
      body: {
        access_token: 'at',
        id_token: this.omitUserId ? undefined : unsignedJwt({ sub: account.id }),
        token_type: 'Bearer',
        expires_in: 86400,
      },
    };
  }

  private cognito(request: http.IncomingMessage, body: string): Answer {
    const error = (type: string, message: string): Answer => ({
      status: 400,
      body: { __type: type, message },
      headers: { 'x-amzn-errortype': type },
    });
    if (request.headers['content-type'] !== 'application/x-amz-json-1.1') return error('SerializationException', 'bad content type');
    if (request.headers['x-amz-target'] !== 'AWSCognitoIdentityProviderService.InitiateAuth') return error('UnknownOperationException', '');
    const input = JSON.parse(body) as { AuthFlow: string; ClientId: string; AuthParameters: Record<string, string> };
    if (input.ClientId !== fakeSecrets.cognitoClientId) return error('ResourceNotFoundException', 'User pool client does not exist.');
    if (input.AuthFlow !== 'USER_PASSWORD_AUTH')
      return error('InvalidParameterException', 'USER_PASSWORD_AUTH flow not enabled for this client');
    const { USERNAME: username, PASSWORD: password, SECRET_HASH: given } = input.AuthParameters;
    const expected = crypto
      .createHmac('sha256', fakeSecrets.cognitoClientSecret)
      .update(username + input.ClientId)
      .digest('base64');
    if (given !== expected || this.mode === 'bad-credentials') {
      return error('NotAuthorizedException', `Unable to verify secret hash for client ${input.ClientId}`);
    }
    if (this.mode === 'throttled') return error('TooManyRequestsException', 'Rate exceeded');
    const { account, right } = this.check(username, password);
    if (!account) return error('UserNotFoundException', 'User does not exist.');
    if (account.state === 'disabled') return error('NotAuthorizedException', 'User is disabled.');
    if (!right) return error('NotAuthorizedException', 'Incorrect username or password.');
    if (account.state === 'unconfirmed') return error('UserNotConfirmedException', 'User is not confirmed.');
    if (account.state === 'temporary-password') return { status: 200, body: { ChallengeName: 'NEW_PASSWORD_REQUIRED', Session: 's' } };
    if (account.state === 'mfa') return { status: 200, body: { ChallengeName: 'SOFTWARE_TOKEN_MFA', Session: 's' } };
    if (this.mode === 'odd-answer') return { status: 200, body: { ChallengeName: 'CUSTOM_CHALLENGE' } };
    const idToken = unsignedJwt(this.omitUserId ? { aud: 'x' } : { sub: account.id });
    const tokens = { AccessToken: 'a', IdToken: idToken, RefreshToken: 'r', ExpiresIn: 3600, TokenType: 'Bearer' };
    return { status: 200, body: { AuthenticationResult: tokens, ChallengeParameters: {} } };
  }

  private okta(request: http.IncomingMessage, body: string): Answer {
    if (request.url !== '/api/v1/authn') return { status: 404, body: {} };
    if (
      this.mode === 'bad-credentials' ||
      (request.headers.authorization && request.headers.authorization !== `SSWS ${fakeSecrets.oktaApiToken}`)
    ) {
      return { status: 401, body: { errorCode: 'E0000011', errorSummary: 'Invalid token provided' } };
    }
    if (this.mode === 'throttled') {
      const reset = String(Math.floor(Date.now() / 1000) + 30);
      return {
        status: 429,
        body: { errorCode: 'E0000047', errorSummary: 'API call exceeded rate limit' },
        headers: { 'x-rate-limit-reset': reset },
      };
    }
    const { username, password } = JSON.parse(body) as { username: string; password: string };
    const { account, right } = this.check(username, password);
    if (!account || !right) return { status: 401, body: { errorCode: 'E0000004', errorSummary: 'Authentication failed' } };
    if (account.state === 'disabled') return { status: 200, body: { status: 'LOCKED_OUT' } };
    if (account.state === 'mfa') {
      const factors = [
        { id: 'f1', factorType: 'token:software:totp', provider: 'GOOGLE' },
        { id: 'f2', factorType: 'sms', provider: 'OKTA' },
      ];
      return { status: 200, body: { status: 'MFA_REQUIRED', stateToken: 's', _embedded: { user: { id: account.id }, factors } } };
    }
    if (this.mode === 'odd-answer') return { status: 200, body: { status: 'UNKNOWN_STATE' } };
    return {
      status: 200,
      body: { status: 'SUCCESS', sessionToken: 'st', _embedded: { user: { id: this.omitUserId ? undefined : account.id } } },
    };
  }

  private supabase(request: http.IncomingMessage, body: string): Answer {
    const url = new URL(request.url ?? '/', 'http://fake');
    if (url.pathname !== '/auth/v1/token' || url.searchParams.get('grant_type') !== 'password') return { status: 404, body: {} };
    if (request.headers.apikey !== fakeSecrets.supabaseApiKey || this.mode === 'bad-credentials') {
      return { status: 401, body: { message: 'Invalid API key' } };
    }
    const error = (status: number, code: string, msg: string): Answer => ({
      status,
      body: { code: status, error_code: code, msg },
      headers: { 'x-sb-error-code': code },
    });
    if (this.mode === 'throttled') return error(429, 'over_request_rate_limit', 'Request rate limit reached');
    const { email, password } = JSON.parse(body) as { email: string; password: string };
    const { account, right } = this.check(email, password);
    if (account?.state === 'disabled') return error(400, 'user_banned', 'User is banned');
    if (!account || !right) return error(400, 'invalid_credentials', 'Invalid login credentials');
    if (account.state === 'unconfirmed') return error(400, 'email_not_confirmed', 'Email not confirmed');
    if (this.mode === 'odd-answer') return { status: 200, body: { token_type: 'bearer' } };
    // The password grant answers aal1 even for a user with factors; the user object lists them.
    const factors =
      account.state === 'mfa'
        ? [
            { id: 'f1', factor_type: 'totp', status: 'verified' },
            { id: 'f2', factor_type: 'phone', status: 'unverified' },
          ]
        : [];
    return {
      status: 200,
      body: {
        access_token: 'at',
        token_type: 'bearer',
        expires_in: 3600,
        refresh_token: 'r',
        user: { id: this.omitUserId ? undefined : account.id, email, factors },
      },
    };
  }
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

function firebaseError(message: string): Answer {
  const code = message.split(' : ')[0];
  return { status: 400, body: { error: { code: 400, message, errors: [{ message: code, domain: 'global', reason: 'invalid' }] } } };
}

function unsignedJwt(claims: Record<string, unknown>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.signature`;
}

function send(response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}
