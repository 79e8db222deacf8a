import { randomBytes, randomUUID } from 'node:crypto';
import type { OptionsRow } from './repository.js';

// Ceremony parameters as the reference validates them (its OptionsValidator), with its defaults.
export const userVerifications = ['required', 'discouraged', 'preferred'] as const;
export const residentKeys = ['required', 'discouraged', 'preferred'] as const;
export const attestations = ['none', 'indirect', 'direct', 'enterprise'] as const;
export const defaultAlgorithmIds = [-8, -7, -257];
const defaultTimeoutMs = 6000;

export interface CeremonyInput {
  relyingPartyId: string;
  relyingPartyName: string;
  origin: string;
  timeout?: number;
  userVerification?: string;
  userPresence?: boolean;
}

export interface RegisterInput extends CeremonyInput {
  displayName?: string;
  attestation?: string;
  residentKey?: string;
  supportedAlgorithmIds?: number[];
}

function oneOf(value: string, allowed: readonly string[], field: string): string | undefined {
  return allowed.includes(value) ? undefined : `Invalid value '${value}' for ${field}. Must be one of: ${allowed.join(', ')}`;
}

/** INVALID_OPTIONS_ERROR's reason for the ceremony parameters, or undefined. */
export function parameterProblem(input: RegisterInput): string | undefined {
  if (input.timeout !== undefined && (!Number.isSafeInteger(input.timeout) || input.timeout < 0)) return 'Timeout must be a positive value';
  return (
    oneOf(input.userVerification ?? 'preferred', userVerifications, 'userVerification') ??
    oneOf(input.attestation ?? 'none', attestations, 'attestation') ??
    oneOf(input.residentKey ?? 'required', residentKeys, 'residentKey') ??
    (input.supportedAlgorithmIds?.length === 0 ? 'supportedAlgorithmIds cannot be empty' : undefined)
  );
}

export function newOptionsRow(
  input: RegisterInput,
  context: { tenantId: string; email: string | null; now: number; usesLeft: number },
): Omit<OptionsRow, 'verified_counter'> {
  const timeout = input.timeout ?? defaultTimeoutMs;
  return {
    id: randomUUID(),
    tenant_id: context.tenantId,
    challenge: randomBytes(32).toString('base64url'),
    email: context.email,
    rp_id: input.relyingPartyId,
    rp_name: input.relyingPartyName,
    origin: input.origin,
    timeout,
    user_verification: input.userVerification || 'preferred',
    user_presence: input.userPresence ?? false,
    supported_algorithm_ids: input.supportedAlgorithmIds ?? defaultAlgorithmIds,
    created_at: context.now,
    expires_at: context.now + timeout,
    uses_left: context.usesLeft,
  };
}

/** The stored options as GET /recipe/webauthn/options answers them. */
export function storedOptionsBody(row: OptionsRow) {
  return {
    status: 'OK' as const,
    webauthnGeneratedOptionsId: row.id,
    relyingPartyId: row.rp_id,
    relyingPartyName: row.rp_name,
    challenge: row.challenge,
    timeout: row.timeout,
    origin: row.origin,
    ...(row.email !== null && { email: row.email }),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    userVerification: row.user_verification,
    userPresence: row.user_presence,
  };
}
