import crypto from 'node:crypto';
import type { SourceConfig } from '../config.js';
import { callSource, isOutcome, jwtSubject, text } from '../http-call.js';
import { configError, match, mismatch, unavailable, type AdapterOutcome, type SourceAdapter } from '../outcome.js';

const MFA_CHALLENGES = new Set(['SMS_MFA', 'SOFTWARE_TOKEN_MFA', 'EMAIL_OTP', 'SELECT_MFA_TYPE', 'MFA_SETUP']);

// `InitiateAuth` with USER_PASSWORD_AUTH: an unsigned JSON-RPC call (IAM does not apply to it).
export function cognitoAdapter(source: SourceConfig): SourceAdapter {
  return {
    async verify(request, signal) {
      const parameters: Record<string, string> = { USERNAME: request.login, PASSWORD: request.password };
      if (source.clientSecret) parameters.SECRET_HASH = secretHash(source.clientSecret, request.login, source.clientId ?? '');
      const body = JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: source.clientId, AuthParameters: parameters });
      const headers = {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth',
      };
      const response = await callSource({ url: source.url, headers, body }, signal);
      if (isOutcome(response)) return response;
      if (response.status === 200) return successOf(response.json, source.acceptMfaChallenge);
      if (response.status !== 400) return unavailable(`HTTP ${response.status}`);
      const type = (text(response.json, '__type') ?? response.headers.get('x-amzn-errortype') ?? '').split('#').pop()!.split(':')[0];
      return errorOf(type, text(response.json, 'message') ?? '');
    },
  };
}

/** Base64(HMAC-SHA256(client secret, username + client id)), over the same username string that is sent. */
export function secretHash(clientSecret: string, username: string, clientId: string): string {
  return crypto
    .createHmac('sha256', clientSecret)
    .update(username + clientId)
    .digest('base64');
}

function successOf(json: unknown, acceptMfa: boolean): AdapterOutcome {
  const idToken = text(json, 'AuthenticationResult', 'IdToken');
  if (text(json, 'AuthenticationResult', 'AccessToken')) return match(jwtSubject(idToken));
  const challenge = text(json, 'ChallengeName');
  // A temporary password set by an administrator is never adopted.
  if (challenge === 'NEW_PASSWORD_REQUIRED') return { kind: 'RESET_REQUIRED' };
  if (challenge !== undefined && MFA_CHALLENGES.has(challenge)) return acceptMfa ? match() : mismatch('mfa');
  return unavailable('unexpected answer');
}

function errorOf(type: string, message: string): AdapterOutcome {
  switch (type) {
    case 'NotAuthorizedException':
      if (/secret hash/i.test(message)) return configError('secret hash refused');
      if (/attempts exceeded|disabled/i.test(message)) return { kind: 'LOCKED' };
      return mismatch();
    case 'UserNotFoundException':
      return { kind: 'NOT_FOUND' };
    case 'PasswordResetRequiredException':
    case 'UserNotConfirmedException':
      return { kind: 'RESET_REQUIRED' };
    case 'TooManyRequestsException':
      return { kind: 'RATE_LIMITED' };
    case 'InvalidParameterException':
    case 'ResourceNotFoundException':
    case 'InvalidUserPoolConfigurationException':
    case 'ForbiddenException':
      return configError(type);
    default:
      return unavailable(type === '' ? 'HTTP 400' : type.slice(0, 64));
  }
}
