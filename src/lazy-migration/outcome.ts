// What a source says about one password. Outcomes are data: only the unavailable kinds become a 503 at sign-in.
/** A second factor the old provider asked for after a right password (docs/mfa-re-enrolment.md). */
export type SecondFactor = 'totp' | 'otp-phone' | 'otp-email' | 'webauthn' | 'unknown';

export type AdapterOutcome =
  /** `secondFactors`: the password is right and the provider wants these factors next (none listed: not known which). */
  | { kind: 'MATCH'; providerUserId?: string; secondFactors?: SecondFactor[] }
  | { kind: 'MISMATCH'; reason?: string }
  | { kind: 'NOT_FOUND' }
  | { kind: 'LOCKED' }
  | { kind: 'RESET_REQUIRED' }
  | { kind: 'RATE_LIMITED'; retryAfterMs?: number }
  | { kind: 'UNAVAILABLE'; reason: string }
  | { kind: 'CONFIG_ERROR'; reason: string };

export interface VerifyRequest {
  /** The pointer's legacy login, or the user's email when the pointer has none. */
  login: string;
  password: string;
  userId: string;
  externalUserId?: string;
  legacyLogin?: string;
  legacyUserId?: string;
  tenantId: string;
  clientIp?: string;
}

export interface SourceAdapter {
  verify(request: VerifyRequest, signal: AbortSignal): Promise<AdapterOutcome>;
}

export const match = (providerUserId?: string): AdapterOutcome => ({ kind: 'MATCH', providerUserId });
/**
 * A full success of a provider whose success answer always names the user: without the id it is no answer we can
 * check against the pointer's old user id, so it never adopts.
 */
export const matchOfUser = (providerUserId: string | undefined): AdapterOutcome =>
  providerUserId ? match(providerUserId) : unavailable('success without the user id');
/** A right password with a second factor pending; an empty list is recorded as `unknown`. */
export const matchWithSecondFactor = (factors: SecondFactor[], providerUserId?: string): AdapterOutcome => ({
  kind: 'MATCH',
  providerUserId,
  secondFactors: factors.length === 0 ? ['unknown'] : [...new Set(factors)].sort(),
});
export const mismatch = (reason?: string): AdapterOutcome => ({ kind: 'MISMATCH', reason });
export const unavailable = (reason: string): AdapterOutcome => ({ kind: 'UNAVAILABLE', reason });
export const configError = (reason: string): AdapterOutcome => ({ kind: 'CONFIG_ERROR', reason });

export type VerifyOutcomeName =
  | 'match'
  | 'mismatch'
  | 'not_found'
  | 'locked'
  | 'reset_required'
  | 'id_mismatch'
  | 'rate_limited'
  | 'unavailable'
  | 'timeout'
  | 'config_error'
  | 'expired'
  | 'throttled_user'
  | 'source_unknown'
  | 'busy'
  /** The password was right, a second factor was pending, and `accept_mfa_challenge: false` keeps the user pending. */
  | 'mfa_kept_pending';

/** The metric name of a source's answer; a match naming another old user than the pointer's is `id_mismatch`. */
export function verifyOutcomeName(outcome: AdapterOutcome, legacyUserId: string | undefined): VerifyOutcomeName {
  switch (outcome.kind) {
    case 'MATCH':
      return legacyUserId !== undefined && outcome.providerUserId !== undefined && outcome.providerUserId !== legacyUserId
        ? 'id_mismatch'
        : 'match';
    case 'MISMATCH':
      return 'mismatch';
    case 'NOT_FOUND':
      return 'not_found';
    case 'LOCKED':
      return 'locked';
    case 'RESET_REQUIRED':
      return 'reset_required';
    case 'RATE_LIMITED':
      return 'rate_limited';
    case 'UNAVAILABLE':
      return outcome.reason === 'timeout' ? 'timeout' : 'unavailable';
    case 'CONFIG_ERROR':
      return 'config_error';
  }
}
