import { coreError } from '../../errors.js';
import type { SealedSecret, TotpSecretBox } from '../../keys/secret-box.js';
import type { Provider, ProviderClient } from './provider-config.js';

/** What is sealed of one client: its secret and its additionalConfig (Apple's private key and the like). */
type ClientSecrets = Pick<ProviderClient, 'clientSecret' | 'additionalConfig'>;

export interface StoredProvider {
  /** The provider without any client's secret or additionalConfig. */
  provider: Provider;
  /** Every client's secrets, by client position, sealed as one value; null when no client has any. */
  secrets: SealedSecret | null;
}

// The associated data binds sealed secrets to their tenant and provider: copied onto another row, they do not open.
const contextOf = (tenantId: string, thirdPartyId: string) => `tenant-provider:${tenantId}:${thirdPartyId}`;

/** Splits a provider into what is stored in clear and its sealed secrets (the keys of totp_secret_keys). */
export function sealProvider(box: TotpSecretBox, tenantId: string, provider: Provider): StoredProvider {
  const secrets: ClientSecrets[] = [];
  const clients = provider.clients.map(({ clientSecret, additionalConfig, ...rest }) => {
    secrets.push({ ...(clientSecret !== undefined && { clientSecret }), ...(additionalConfig !== undefined && { additionalConfig }) });
    return rest;
  });
  const clear = { ...provider, clients };
  if (secrets.every((entry) => Object.keys(entry).length === 0)) return { provider: clear, secrets: null };
  return { provider: clear, secrets: box.sealFor(contextOf(tenantId, provider.thirdPartyId), JSON.stringify(secrets)) };
}

/** The provider as written, secrets included (the SDK needs them to sign in). */
export function openProvider(box: TotpSecretBox, tenantId: string, stored: StoredProvider): Provider {
  if (stored.secrets === null) return stored.provider;
  const text = box.openFor(contextOf(tenantId, stored.provider.thirdPartyId), stored.secrets);
  if (text === undefined) throw coreError('PROVIDER_SECRETS_UNREADABLE', tenantId, stored.provider.thirdPartyId);
  const secrets = JSON.parse(text) as ClientSecrets[];
  return { ...stored.provider, clients: stored.provider.clients.map((client, index) => ({ ...client, ...secrets[index] })) };
}
