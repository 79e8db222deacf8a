import type { SourceConfig } from '../config.js';
import { callSource, field, isOutcome, text } from '../http-call.js';
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

// `accounts:signInWithPassword` of the Identity Toolkit REST API, with the project's web API key.
export function firebaseAdapter(source: SourceConfig): SourceAdapter {
  // TOO_MANY_ATTEMPTS_TRY_LATER is per user; seen for three users within a minute it means the project throttles us.
  const throttled = new Map<string, number>();
  return {
    async verify(request, signal) {
      const url = `${source.url}?key=${encodeURIComponent(source.apiKey ?? '')}`;
      const payload: Record<string, unknown> = { email: request.login, password: request.password, returnSecureToken: true };
      if (source.tenantId) payload.tenantId = source.tenantId;
      const response = await callSource({ url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) }, signal);
      if (isOutcome(response)) return response;
      if (response.status === 200) {
        if (text(response.json, 'idToken')) return matchOfUser(text(response.json, 'localId'));
        if (text(response.json, 'mfaPendingCredential'))
          return matchWithSecondFactor(factorsOf(response.json), text(response.json, 'localId'));
        return unavailable('unexpected answer');
      }
      if (response.status === 403) return configError('HTTP 403');
      if (response.status !== 400) return unavailable(`HTTP ${response.status}`);
      const code = (text(response.json, 'error', 'message') ?? '').split(' : ')[0].trim();
      return outcomeOf(code, request.login, throttled);
    },
  };
}

// `mfaInfo[]` of a pending sign-in: an enrolment with `phoneInfo` is an SMS factor, with `totpInfo` an authenticator app.
function factorsOf(json: unknown): SecondFactor[] {
  const enrolments = field(json, 'mfaInfo');
  if (!Array.isArray(enrolments)) return [];
  return enrolments.map((enrolment): SecondFactor => {
    if (field(enrolment, 'phoneInfo') !== undefined) return 'otp-phone';
    if (field(enrolment, 'totpInfo') !== undefined) return 'totp';
    return 'unknown';
  });
}

function outcomeOf(code: string, login: string, throttled: Map<string, number>): AdapterOutcome {
  switch (code) {
    case 'INVALID_LOGIN_CREDENTIALS':
    case 'INVALID_PASSWORD':
    case 'INVALID_EMAIL':
    case 'MISSING_PASSWORD':
      return mismatch(code.toLowerCase());
    case 'EMAIL_NOT_FOUND':
      return { kind: 'NOT_FOUND' };
    case 'USER_DISABLED':
      return { kind: 'LOCKED' };
    case 'TOO_MANY_ATTEMPTS_TRY_LATER': {
      const now = Date.now();
      for (const [seen, at] of throttled) if (at < now - 60_000) throttled.delete(seen);
      throttled.set(login, now);
      return throttled.size >= 3 ? { kind: 'RATE_LIMITED' } : { kind: 'LOCKED' };
    }
    case 'PASSWORD_LOGIN_DISABLED':
    case 'OPERATION_NOT_ALLOWED':
    case 'INVALID_TENANT_ID':
      return configError(code);
    default:
      return /api key not valid/i.test(code) ? configError('API key not valid') : unavailable(`error ${code.slice(0, 64)}`);
  }
}
