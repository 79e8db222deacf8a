import type { JWTPayload } from 'jose';
import type { BlockReader } from '../../config/block-reader.js';

/** What a source trusts: where its keys are, what its tokens must say, and which claim names the old user. */
export interface Trust {
  issuer: string;
  /** Checked when set: the token's `aud` (a string or a list) must hold it. */
  audience?: string;
  /** The provider's published key set; tests and self-hosted providers override it with `jwks_url`. */
  jwksUrl: string;
  /** Which config key the key URL comes from, named when the URL is refused. */
  jwksUrlKey: string;
  /** Asymmetric algorithms the provider signs with; anything else is refused before any key is looked up. */
  algorithms: readonly string[];
  /** Supabase projects still on the shared secret sign HS256 with it. */
  hmacSecret?: Uint8Array;
  /** The claims that may hold the old user id, first present wins. */
  subjectClaims: readonly string[];
  /** A kind's own rule on the verified claims (Cognito's token_use); `now` in milliseconds; returns the cause of a refusal. */
  check?: (claims: JWTPayload, now: number) => InvalidCause | undefined;
}

export interface BridgeKind {
  required: readonly string[];
  optional: readonly string[];
  trust(read: BlockReader): Trust;
}

export type InvalidCause =
  | 'malformed'
  | 'oversized'
  | 'algorithm_not_allowed'
  | 'unknown_key'
  | 'bad_signature'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'expired'
  | 'not_yet_valid'
  | 'missing_expiry'
  | 'missing_subject'
  | 'wrong_token_use';

export const invalidCauses: readonly InvalidCause[] = [
  'malformed',
  'oversized',
  'algorithm_not_allowed',
  'unknown_key',
  'bad_signature',
  'wrong_issuer',
  'wrong_audience',
  'expired',
  'not_yet_valid',
  'missing_expiry',
  'missing_subject',
  'wrong_token_use',
];

export const trimSlashes = (url: string) => url.replace(/\/+$/, '');
