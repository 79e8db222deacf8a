import { CliError } from './cli-error.js';
import type { OpenedSource } from './readers/index.js';

// Contract-webauthn W-5: a passkey signs in only under the RP ID it was made for, so a run whose export holds
// passkeys for RP IDs the core does not list is refused before anything is sent (in a dry run too), naming them, the
// setting and the domain the app must keep serving; --leave-unconfigured-passkeys runs anyway, leaving those behind.

// Domains only the old provider can serve: a passkey made for one of them stays there, whatever the core lists.
const PROVIDER_DOMAINS = ['.auth0.com', '.amazoncognito.com', '.supabase.co'];

export function isProviderDomain(rpId: string): boolean {
  return PROVIDER_DOMAINS.some((domain) => rpId.endsWith(domain));
}

/**
 * Reads the export once and throws a CliError (exit code 2) when some passkey would be carried but for its RP ID,
 * which the core's webauthn_rp_ids does not list (null: the setting is unset). Passkeys left behind for another
 * reason (no public key at the source, the old provider's own domain, no RP ID in the export) do not count: no
 * setting brings those along, and the report names each with its reason.
 */
export async function refuseUnconfiguredRpIds(source: OpenedSource, coreRpIds: readonly string[] | null): Promise<void> {
  const unconfigured = new Map<string, number>();
  for await (const record of source.records) {
    for (const rpId of record.unconfiguredRpIds ?? []) {
      if (isProviderDomain(rpId)) continue;
      unconfigured.set(rpId, (unconfigured.get(rpId) ?? 0) + 1);
    }
  }
  if (unconfigured.size === 0) return;
  const found = [...unconfigured].map(([rpId, count]) => `${rpId} (${count} passkey${count === 1 ? '' : 's'})`).join(', ');
  const domains = [...unconfigured.keys()].join(', ');
  const setting =
    coreRpIds === null
      ? "the core's webauthn_rp_ids is unset"
      : `the core's webauthn_rp_ids lists ${coreRpIds.length === 0 ? 'none' : coreRpIds.join(', ')}`;
  throw new CliError(
    `the export has passkeys for relying-party ids the core is not configured for: ${found}; ${setting}. ` +
      `A passkey signs in only under the RP ID it was made for: the app must keep serving ${domains} ` +
      `(its sign-in pages on that domain or a subdomain, getRelyingPartyId set to it), and the core's webauthn_rp_ids ` +
      `(env WEBAUTHN_RP_IDS) must list it; set it, restart the core and run again, or pass --leave-unconfigured-passkeys ` +
      `to import the users without those passkeys (each left behind is named in the report, its user marked to re-enrol). ` +
      `Nothing was sent.`,
  );
}
