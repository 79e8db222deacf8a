// What a source says about one password. Outcomes are data: only the unavailable kinds become a 503 at sign-in.
export type AdapterOutcome =
  | { kind: 'MATCH'; providerUserId?: string }
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
export const mismatch = (reason?: string): AdapterOutcome => ({ kind: 'MISMATCH', reason });
export const unavailable = (reason: string): AdapterOutcome => ({ kind: 'UNAVAILABLE', reason });
export const configError = (reason: string): AdapterOutcome => ({ kind: 'CONFIG_ERROR', reason });
