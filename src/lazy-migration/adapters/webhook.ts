import crypto from 'node:crypto';
import type { SourceConfig } from '../config.js';
import { callSource, field, isOutcome, retryAfterMs, text } from '../http-call.js';
import { configError, match, matchWithSecondFactor, mismatch, unavailable, type SecondFactor, type SourceAdapter } from '../outcome.js';

const FACTORS: readonly SecondFactor[] = ['totp', 'otp-phone', 'otp-email', 'webauthn', 'unknown'];

// The operator's own verifier. Request and answer follow the shape a Kratos password-migration hook reads and writes
// (`identifier` and `password` in; `{"status":"password_match"}` out), so such a hook works unchanged.
export function webhookAdapter(source: SourceConfig, userAgent: string): SourceAdapter {
  return {
    async verify(request, signal) {
      const body = JSON.stringify({
        identifier: request.login,
        password: request.password,
        source: source.name,
        userId: request.userId,
        externalUserId: request.externalUserId ?? null,
        legacyIdentifier: request.legacyLogin ?? null,
        legacyUserId: request.legacyUserId ?? null,
        tenantId: request.tenantId,
      });
      const headers: Record<string, string> = {
        ...source.headers,
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': userAgent,
      };
      if (source.hmacSecret) Object.assign(headers, signature(source.hmacSecret, body));
      const response = await callSource({ url: source.url, headers, body }, signal);
      if (isOutcome(response)) return response;
      if (response.status === 429) return { kind: 'RATE_LIMITED', retryAfterMs: retryAfterMs(response.headers) };
      if (response.status === 401) return configError('the hook refused our credentials (401)');
      if (response.status === 403) return mismatch('forbidden');
      if (response.status !== 200) return unavailable(`HTTP ${response.status}`);
      const status = text(response.json, 'status');
      if (status === 'password_match') {
        // Optional: the second factors the user has at the old system, so adoption marks them for re-enrolment.
        // Optional too: the user's id at the old system, checked against the pointer's like every provider's.
        const userId = text(response.json, 'userId');
        const factors = field(response.json, 'secondFactors');
        if (!Array.isArray(factors) || factors.length === 0) return match(userId);
        return matchWithSecondFactor(
          factors.map((name) => (FACTORS.includes(name as SecondFactor) ? (name as SecondFactor) : 'unknown')),
          userId,
        );
      }
      return mismatch(status === 'user_not_found' || status === 'locked' ? status : 'password_mismatch');
    },
  };
}

/** `v1=` HMAC-SHA256 over `<unix seconds>.<raw body>`, so a receiver can refuse old or altered requests. */
export function signature(secret: string, body: string, nowSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
  const timestamp = String(nowSeconds);
  const mac = crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return { 'x-identitycore-timestamp': timestamp, 'x-identitycore-signature': `v1=${mac}` };
}
