import type { SourceConfig } from '../config.js';
import { callSource, isOutcome, text } from '../http-call.js';
import { configError, match, mismatch, unavailable, type SourceAdapter } from '../outcome.js';

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
        return text(response.json, 'access_token') ? match(text(response.json, 'user', 'id')) : unavailable('unexpected answer');
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
