import {
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { CredentialRow, OptionsRow } from './repository.js';

// The WebAuthn checks themselves (W-2) are the library's: challenge, origin, rpIdHash, flags, algorithm, attestation
// and signature. What it cannot know is ours: the stored options, the stored counter and the imported user handle.

export type Verified<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface RegisteredCredential {
  id: string;
  publicKey: Buffer;
  counter: number;
  transports: string[];
  aaguid: string | null;
  backupEligible: boolean;
  backedUp: boolean;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : 'verification failed';
}

export async function verifyRegistration(options: OptionsRow, credential: unknown): Promise<Verified<RegisteredCredential>> {
  try {
    const result = await verifyRegistrationResponse({
      response: credential as RegistrationResponseJSON,
      expectedChallenge: options.challenge,
      expectedOrigin: options.origin,
      expectedRPID: options.rp_id,
      requireUserPresence: options.user_presence,
      requireUserVerification: options.user_verification === 'required',
      supportedAlgorithmIDs: options.supported_algorithm_ids,
    });
    if (!result.verified) return { ok: false, reason: 'the registration did not verify' };
    const info = result.registrationInfo;
    const aaguid = info.aaguid === '00000000-0000-0000-0000-000000000000' ? null : info.aaguid;
    return {
      ok: true,
      value: {
        id: info.credential.id,
        publicKey: Buffer.from(info.credential.publicKey),
        counter: info.credential.counter,
        transports: (credential as RegistrationResponseJSON).response.transports ?? [],
        aaguid,
        backupEligible: info.credentialDeviceType === 'multiDevice',
        backedUp: info.credentialBackedUp,
      },
    };
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
}

export interface Assertion {
  counter: number;
  backedUp: boolean;
}

export async function verifyAssertion(options: OptionsRow, stored: CredentialRow, credential: unknown): Promise<Verified<Assertion>> {
  try {
    const result = await verifyAuthenticationResponse({
      response: credential as AuthenticationResponseJSON,
      expectedChallenge: options.challenge,
      expectedOrigin: options.origin,
      expectedRPID: options.rp_id,
      requireUserVerification: options.user_verification === 'required',
      // The counter rule is ours (checkCounter): the library would refuse the SDK's second verification of one
      // assertion below cdi 5.5.
      credential: { id: stored.credential_id, publicKey: new Uint8Array(stored.public_key), counter: 0 },
    });
    if (!result.verified) return { ok: false, reason: 'the assertion did not verify' };
    return { ok: true, value: { counter: result.authenticationInfo.newCounter, backedUp: result.authenticationInfo.credentialBackedUp } };
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
}

/**
 * The clone rule of W-2: a presented counter not above a non-zero stored one is refused, unless it is the very
 * counter the previous verification under these same options stored (the SDK's second look at one assertion).
 */
export function counterProblem(options: OptionsRow, stored: CredentialRow, presented: number): string | undefined {
  if (presented === 0 || stored.counter === 0 || presented > stored.counter) return undefined;
  if (presented === stored.counter && options.verified_counter === stored.counter) return undefined;
  return `signature counter ${presented} is not above the stored ${stored.counter}: possibly a cloned authenticator`;
}

/** An imported credential keeps the user handle the old provider gave it; a browser must present the same one. */
export function userHandleProblem(stored: CredentialRow, credential: unknown): string | undefined {
  if (stored.user_handle === null) return undefined;
  const presented = (credential as AuthenticationResponseJSON).response.userHandle;
  if (presented === undefined || presented === '') return undefined;
  return presented.replace(/=+$/, '') === stored.user_handle.replace(/=+$/, '') ? undefined : 'userHandle does not match the credential';
}
