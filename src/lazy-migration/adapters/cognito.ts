import crypto from 'node:crypto';
import type { SourceConfig } from '../config.js';
import { callSource, isOutcome, jwtSubject, text } from '../http-call.js';
import {
  configError,
  matchOfUser,
  matchWithSecondFactor,
  mismatch,
  unavailable,
  type AdapterOutcome,
  type SecondFactor,
  type SourceAdapter,
} from '../outcome.js';

// The challenges Cognito sends after a right password when the user has (or must set up) a second factor.
const FACTOR_OF_CHALLENGE: Readonly<Record<string, SecondFactor>> = {
  SOFTWARE_TOKEN_MFA: 'totp',
  SMS_MFA: 'otp-phone',
  EMAIL_OTP: 'otp-email',
};
const MFA_CHALLENGES = new Set([...Object.keys(FACTOR_OF_CHALLENGE), 'SELECT_MFA_TYPE', 'MFA_SETUP']);

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
      if (response.status === 200) return successOf(response.json);
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

function successOf(json: unknown): AdapterOutcome {
  const idToken = text(json, 'AuthenticationResult', 'IdToken');
  if (text(json, 'AuthenticationResult', 'AccessToken')) return matchOfUser(jwtSubject(idToken));
  const challenge = text(json, 'ChallengeName');
  // A temporary password set by an administrator is never adopted.
  if (challenge === 'NEW_PASSWORD_REQUIRED') return { kind: 'RESET_REQUIRED' };
  if (challenge !== undefined && MFA_CHALLENGES.has(challenge)) return matchWithSecondFactor(factorsOf(challenge, json));
  return unavailable('unexpected answer');
}

// SELECT_MFA_TYPE lists the user's factors in MFAS_CAN_CHOOSE (a JSON array in a string); MFA_SETUP names none.
function factorsOf(challenge: string, json: unknown): SecondFactor[] {
  if (FACTOR_OF_CHALLENGE[challenge]) return [FACTOR_OF_CHALLENGE[challenge]];
  if (challenge !== 'SELECT_MFA_TYPE') return [];
  try {
    const listed: unknown = JSON.parse(text(json, 'ChallengeParameters', 'MFAS_CAN_CHOOSE') ?? '[]');
    return Array.isArray(listed) ? listed.map((name) => FACTOR_OF_CHALLENGE[String(name)] ?? 'unknown') : [];
  } catch {
    return [];
  }
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
