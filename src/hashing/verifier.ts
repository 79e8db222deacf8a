export type HashingAlgorithm = 'BCRYPT' | 'ARGON2' | 'IDP_SCRYPT';

/**
 * `recognised` marks a hash that has this algorithm's full shape but bad values, so callers can tell
 * "this is a scrypt-variant hash" (signer key needed) from "this is not a hash of this kind at all".
 */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; reason: string; recognised?: boolean };

export interface VerifyContext {
  signerKey?: Buffer;
}

export interface Verifier<T> {
  readonly id: HashingAlgorithm;
  /** The §6.1 import error for a hash rejected when this algorithm was named. */
  readonly invalidMessage: string;
  readonly needsSignerKey: boolean;
  hasPrefix(hash: string): boolean;
  /** Validates format and parameter bounds. */
  parse(hash: string): ParseResult<T>;
  verify(password: string, parsed: T, context: VerifyContext): Promise<boolean>;
  /** Bytes one verification of this hash allocates, for the scheduler's memory budget. */
  memoryBytes(parsed: T): number;
}

export function fail(reason: string, recognised = false): { ok: false; reason: string; recognised: boolean } {
  return { ok: false, reason, recognised };
}
