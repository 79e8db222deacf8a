import type { SourceConfig } from '../config.js';
import { callSource, isOutcome, jwtSubject, retryAfterMs, text } from '../http-call.js';
import { configError, matchOfUser, matchWithSecondFactor, mismatch, unavailable, type SourceAdapter } from '../outcome.js';

// The Resource Owner Password grant with a realm (the database connection) at `/oauth/token`.
export function auth0Adapter(source: SourceConfig): SourceAdapter {
  return {
    async verify(request, signal) {
      const form = new URLSearchParams({
        grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
        realm: source.realm ?? '',
        username: request.login,
        password: request.password,
        client_id: source.clientId ?? '',
        scope: 'openid',
      });
      if (source.clientSecret) form.set('client_secret', source.clientSecret);
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
      if (source.forwardUserIp && request.clientIp) headers['auth0-forwarded-for'] = request.clientIp;
      const response = await callSource({ url: source.url, headers, body: form.toString() }, signal);
      if (isOutcome(response)) return response;
      const error = text(response.json, 'error');
      if (response.status === 200) {
        return text(response.json, 'access_token')
          ? matchOfUser(jwtSubject(text(response.json, 'id_token')))
          : unavailable('unexpected answer');
      }
      if (response.status === 429) return { kind: 'RATE_LIMITED', retryAfterMs: retryAfterMs(response.headers) };
      // The answer names no factor (asking /mfa/authenticators would be one more call with the user's mfa_token).
      if (response.status === 403 && error === 'mfa_required') return matchWithSecondFactor([]);
      if (response.status === 403 && error === 'invalid_grant') {
        const description = text(response.json, 'error_description') ?? '';
        return /wrong (email|username) or password/i.test(description) ? mismatch() : { kind: 'LOCKED' };
      }
      if (response.status === 401 || response.status === 403 || response.status === 400 || response.status === 404) {
        return configError(`HTTP ${response.status} ${(error ?? '').slice(0, 64)}`.trim());
      }
      return unavailable(`HTTP ${response.status}`);
    },
  };
}
