import type { Candidate } from '../bulk-user.js';

// What the command knows of passkeys before a reader runs, and what it makes of one user's passkeys.
export interface PasskeyContext {
  /** --rp-id: the RP ID the source's passkeys were made for, where the export does not say it per passkey. */
  rpId?: string;
  /** The core's webauthn_rp_ids; null: the setting is unset, so it imports none; undefined: the core did not say. */
  coreRpIds?: readonly string[] | null;
}

export interface PasskeyOutcome {
  /** The webauthn login method with every passkey carried; its problem set when the user has no email. */
  candidate?: Candidate;
  /** Some passkey carried was a second factor: `webauthn` joins the required secondary factors. */
  secondFactor: boolean;
  carried: string[];
  notCarried: string[];
  /** Some passkey is left behind: the user is marked to enrol one again. */
  reEnrol: boolean;
  /** The RP ID of each passkey found ('' when unknown), for the dry run's list. */
  rpIds: string[];
  /** The RP ID of each passkey left behind only because the core does not list it (the run refuses these). */
  unconfiguredRpIds: string[];
}
