import type { SourceConfig } from '../config.js';
import { callSource, field, isOutcome, text } from '../http-call.js';
import {
  configError,
  match,
  matchOfUser,
  matchWithSecondFactor,
  mismatch,
  unavailable,
  type SecondFactor,
  type SourceAdapter,
} from '../outcome.js';

const FACTOR_OF_TYPE: Readonly<Record<string, SecondFactor>> = { totp: 'totp', phone: 'otp-phone', webauthn: 'webauthn' };

// The password grant of Supabase Auth, `POST /auth/v1/token?grant_type=password` with the project's public key.
export function supabaseAdapter(source: SourceConfig): SourceAdapter {
  return {
    async verify(request, signal) {
      const headers: Record<string, string> = { 'content-type': 'application/json', apikey: source.apiKey ?? '' };
      if (source.forwardUserIp && request.clientIp) headers['sb-forwarded-for'] = request.clientIp;
      const body = JSON.stringify({ email: request.login, password: request.password });
      const response = await callSource({ url: source.url, headers, body }, signal);
      if (isOutcome(response)) return response;
      if (response.status === 200) {
        if (!text(response.json, 'access_token')) return unavailable('unexpected answer');
        // The password grant gives a first-factor session even to a user with verified factors; they are listed.
        const verified = field(response.json, 'user', 'factors');
        const factors = Array.isArray(verified) ? verified.filter((factor) => field(factor, 'status') === 'verified') : [];
        const id = text(response.json, 'user', 'id');
        if (factors.length === 0) return matchOfUser(id);
        return matchWithSecondFactor(
          factors.map((factor) => FACTOR_OF_TYPE[String(field(factor, 'factor_type'))] ?? 'unknown'),
          id,
        );
      }
      // Both body versions carry the code; so does the x-sb-error-code header.
      const code = response.headers.get('x-sb-error-code') ?? text(response.json, 'error_code') ?? text(response.json, 'code') ?? '';
      if (response.status === 429) return { kind: 'RATE_LIMITED' };
      if (response.status === 401) return configError('API key refused (401)');
      if (code === 'invalid_credentials') return mismatch();
      // Supabase checks confirmation only after the password was right.
      if (code === 'email_not_confirmed' || code === 'phone_not_confirmed') return match();
      if (code === 'user_banned') return { kind: 'LOCKED' };
      if (code === 'email_provider_disabled' || code === 'phone_provider_disabled') return configError(code);
      return unavailable(`HTTP ${response.status}`);
    },
  };
}
