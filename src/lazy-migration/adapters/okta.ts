import type { SourceConfig } from '../config.js';
import { callSource, field, isOutcome, text } from '../http-call.js';
import {
  configError,
  matchOfUser,
  matchWithSecondFactor,
  mismatch,
  unavailable,
  type SecondFactor,
  type SourceAdapter,
} from '../outcome.js';

const PASSWORD_VALIDATED = new Set(['SUCCESS', 'PASSWORD_WARN', 'PASSWORD_EXPIRED']);
const MFA_STATES = new Set(['MFA_REQUIRED', 'MFA_ENROLL', 'MFA_CHALLENGE']);
const FACTOR_OF_TYPE: Readonly<Record<string, SecondFactor>> = {
  'token:software:totp': 'totp',
  'token:totp': 'totp',
  sms: 'otp-phone',
  call: 'otp-phone',
  email: 'otp-email',
  webauthn: 'webauthn',
  u2f: 'webauthn',
};

// The enrolled factors of an MFA_REQUIRED or MFA_CHALLENGE answer, `_embedded.factors[].factorType`.
function factorsOf(json: unknown): SecondFactor[] {
  const factors = field(json, '_embedded', 'factors');
  if (!Array.isArray(factors)) return [];
  return factors.map((factor) => FACTOR_OF_TYPE[String(field(factor, 'factorType'))] ?? 'unknown');
}

// Primary authentication of the Okta Authentication API, `POST /api/v1/authn`; with an API token it runs as a
// trusted application that forwards the end user's IP.
export function oktaAdapter(source: SourceConfig): SourceAdapter {
  return {
    async verify(request, signal) {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      if (source.apiToken) headers.authorization = `SSWS ${source.apiToken}`;
      if (source.apiToken && source.forwardUserIp && request.clientIp) headers['x-forwarded-for'] = request.clientIp;
      const body = JSON.stringify({
        username: request.login,
        password: request.password,
        options: { multiOptionalFactorEnroll: false, warnBeforePasswordExpired: false },
      });
      const response = await callSource({ url: source.url, headers, body }, signal);
      if (isOutcome(response)) return response;
      if (response.status === 200) {
        const state = text(response.json, 'status') ?? '';
        const userId = text(response.json, '_embedded', 'user', 'id');
        if (PASSWORD_VALIDATED.has(state)) return matchOfUser(userId);
        if (MFA_STATES.has(state)) return matchWithSecondFactor(state === 'MFA_ENROLL' ? [] : factorsOf(response.json), userId);
        if (state === 'LOCKED_OUT') return { kind: 'LOCKED' };
        return unavailable('unexpected state');
      }
      if (response.status === 429) {
        const reset = Number(response.headers.get('x-rate-limit-reset'));
        return {
          kind: 'RATE_LIMITED',
          retryAfterMs: Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - Date.now()) : undefined,
        };
      }
      const code = text(response.json, 'errorCode');
      if (response.status === 401 && code === 'E0000004') return mismatch();
      if (response.status === 401 || response.status === 403) return configError(`HTTP ${response.status} ${code ?? ''}`.trim());
      return unavailable(`HTTP ${response.status}`);
    },
  };
}
