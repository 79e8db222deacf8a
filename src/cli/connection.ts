// The two settings every subcommand that talks to the core shares, each with one environment variable, so that the
// README, the guides, --help and the 401 message all name the same ones.
export const CORE_URL_VARIABLE = 'IDENTITY_CORE_URL';
export const API_KEY_VARIABLE = 'IDENTITY_CORE_API_KEY';
export const DEFAULT_CORE_URL = 'http://localhost:3567';

type Env = Readonly<Record<string, string | undefined>>;

export function coreUrlFrom(flag: string | undefined, env: Env): string {
  return flag ?? (env[CORE_URL_VARIABLE] || DEFAULT_CORE_URL);
}

export function apiKeyFrom(flag: string | undefined, env: Env): string | undefined {
  return flag ?? (env[API_KEY_VARIABLE] || undefined);
}
