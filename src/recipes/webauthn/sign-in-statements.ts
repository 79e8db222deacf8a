import type { Queryable } from '../../db/pool.js';
import { userColumns, userFrom, type LoginMethodRow } from '../../users/repository.js';
import { credentialColumns, optionsColumns, type CredentialRow, type OptionsRow } from './repository.js';

// A passkey sign-in in two statements inside its transaction: one reads and locks the options and the credential
// they are verified against, one records the use, spends the options (as spendOptions does) and reads the login
// method back. Three round trips fewer than a statement per step (docs/performance.md).

const credentialFields = [
  'rp_id',
  'credential_id',
  'user_id',
  'public_key',
  'counter',
  'transports',
  'aaguid',
  'user_handle',
  'backup_eligible',
  'backed_up',
  'created_at',
  'last_used_at',
] as const satisfies readonly (keyof CredentialRow)[];

type LockedRow = OptionsRow & { [K in (typeof credentialFields)[number] as `c_${K}`]: CredentialRow[K] | null };

/**
 * The options (by id and tenant) and, when `credentialId` is given, the credential of their RP ID with that id, both
 * held FOR UPDATE until the transaction ends, so that two verifications can neither both spend the options nor both
 * pass the counter check.
 */
export async function lockSignIn(
  db: Queryable,
  tenantId: string,
  optionsId: string,
  credentialId: string | null,
): Promise<{ options?: OptionsRow; credential?: CredentialRow }> {
  const { rows } = await db.query<LockedRow>(
    `WITH o AS (SELECT ${optionsColumns} FROM webauthn_options WHERE id = $1 AND tenant_id = $2 FOR UPDATE),
          c AS (SELECT ${credentialColumns} FROM webauthn_credentials
                 WHERE rp_id = (SELECT rp_id FROM o) AND credential_id = $3 FOR UPDATE)
     SELECT o.*, ${credentialFields.map((field) => `c.${field} AS c_${field}`).join(', ')} FROM o LEFT JOIN c ON true`,
    [optionsId, tenantId, credentialId],
  );
  const row = rows[0];
  if (!row) return {};
  const options = { ...row } as Record<string, unknown>;
  const credential: Record<string, unknown> = {};
  for (const field of credentialFields) {
    credential[field] = row[`c_${field}`];
    delete options[`c_${field}`];
  }
  return {
    options: options as unknown as OptionsRow,
    credential: row.c_credential_id === null ? undefined : (credential as unknown as CredentialRow),
  };
}

export interface SignInUse {
  credential: Pick<CredentialRow, 'rp_id' | 'credential_id' | 'user_id'>;
  counter: number;
  backedUp: boolean;
  at: number;
  optionsId: string;
  /** The counter the options remember for the SDK's second verification (below cdi 5.5). */
  verifiedCounter: number;
  /** cdi >= 5.5: the options are spent by this verification; below, the last allowed one spends them. */
  consume: boolean;
}

/** Records the credential's use, spends the options and answers the credential owner's login method. */
export async function completeSignIn(db: Queryable, use: SignInUse): Promise<LoginMethodRow | undefined> {
  const { rows } = await db.query<LoginMethodRow>(
    `WITH used AS (UPDATE webauthn_credentials SET counter = greatest(counter, $3), backed_up = $4, last_used_at = $5
                    WHERE rp_id = $1 AND credential_id = $2),
          gone AS (DELETE FROM webauthn_options WHERE id = $6 AND ($8::boolean OR uses_left <= 1)),
          spent AS (UPDATE webauthn_options SET uses_left = uses_left - 1, verified_counter = $7
                     WHERE id = $6 AND NOT $8::boolean AND uses_left > 1)
     SELECT ${userColumns} FROM ${userFrom} WHERE u.user_id = $9`,
    [
      use.credential.rp_id,
      use.credential.credential_id,
      use.counter,
      use.backedUp,
      use.at,
      use.optionsId,
      use.verifiedCounter,
      use.consume,
      use.credential.user_id,
    ],
  );
  return rows[0];
}
