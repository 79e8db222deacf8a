import type { SourceKind } from '../../src/lazy-migration/config.js';
import { fakeSecrets } from './fake-providers.js';

/** The `lazy_migration.sources.<name>` entry that points a source of this kind at a fake provider. */
export function sourceEntry(kind: SourceKind, url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base = { kind, timeout_ms: 1000, ...extra };
  switch (kind) {
    case 'webhook':
      return {
        ...base,
        url: `${url}/verify-password`,
        headers: { Authorization: `Bearer ${fakeSecrets.hookToken}` },
        hmac_secret: fakeSecrets.hookHmacSecret,
      };
    case 'firebase':
      return { ...base, api_key: fakeSecrets.firebaseApiKey, base_url: url };
    case 'auth0':
      return {
        ...base,
        domain: 'tenant.example',
        client_id: fakeSecrets.auth0ClientId,
        client_secret: fakeSecrets.auth0ClientSecret,
        realm: fakeSecrets.auth0Realm,
        base_url: url,
      };
    case 'cognito':
      return {
        ...base,
        region: 'eu-west-1',
        client_id: fakeSecrets.cognitoClientId,
        client_secret: fakeSecrets.cognitoClientSecret,
        endpoint: `${url}/`,
      };
    case 'okta':
      return { ...base, domain: 'example.okta.com', api_token: fakeSecrets.oktaApiToken, base_url: url };
    case 'supabase':
      return { ...base, url, api_key: fakeSecrets.supabaseApiKey };
  }
}
