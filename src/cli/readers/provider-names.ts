// Third-party ids as the core's SDKs name providers (`google`, `github`, ...), from each source's ids.
const FIREBASE_PROVIDERS: Readonly<Record<string, string>> = {
  'google.com': 'google',
  'facebook.com': 'facebook',
  'github.com': 'github',
  'apple.com': 'apple',
  'twitter.com': 'twitter',
  'microsoft.com': 'microsoft',
  'yahoo.com': 'yahoo',
  'playgames.google.com': 'playgames',
  'gc.apple.com': 'gamecenter',
};

const AUTH0_PROVIDERS: Readonly<Record<string, string>> = {
  'google-oauth2': 'google',
  windowslive: 'microsoft',
  waad: 'active-directory',
};

/** `--map-provider from=to` entries win over the built-in names. */
export type ProviderOverrides = ReadonlyMap<string, string>;

export function firebaseThirdPartyId(providerId: string, overrides: ProviderOverrides): string {
  return overrides.get(providerId) ?? FIREBASE_PROVIDERS[providerId] ?? providerId.toLowerCase().replace(/\.com$/, '');
}

export function auth0ThirdPartyId(provider: string, overrides: ProviderOverrides): string {
  return overrides.get(provider) ?? AUTH0_PROVIDERS[provider] ?? provider.toLowerCase();
}
