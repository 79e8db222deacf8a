import { SOURCE_NAME } from '../hashing/lazy-pointer.js';
import { BlockConfigError as LazyConfigError, allowOnly, mapping, reader, type Raw } from '../config/block-reader.js';

export { LazyConfigError };

// The `lazy_migration` block: one YAML mapping (or the same structure as JSON in LAZY_MIGRATION). Any string value
// may be `env:NAME`, read from the environment once at startup, so secrets stay out of config files.

export type SourceKind = 'webhook' | 'firebase' | 'auth0' | 'cognito' | 'okta' | 'supabase';
export const sourceKinds: readonly SourceKind[] = ['webhook', 'firebase', 'auth0', 'cognito', 'okta', 'supabase'];

export interface SourceLimits {
  timeoutMs: number;
  maxInFlight: number;
  ratePerSecond: number;
  burst: number;
  queueWaitMs: number;
  breakerFailures: number;
  breakerOpenMs: number;
}

export interface SourceConfig extends SourceLimits {
  name: string;
  kind: SourceKind;
  acceptMfaChallenge: boolean;
  /** Milliseconds since the epoch after which the source is never called. */
  deadline?: number;
  forwardUserIp: boolean;
  /** Every kind's endpoint: the provider's own unless overridden (tests point it at a loopback fake). */
  url: string;
  headers: Record<string, string>;
  hmacSecret?: string;
  apiKey?: string;
  tenantId?: string;
  clientId?: string;
  clientSecret?: string;
  realm?: string;
  apiToken?: string;
}

export interface LazyMigrationConfig {
  enabled: boolean;
  allowCanary: boolean;
  maxAttemptsPerUserPerHour: number;
  sources: ReadonlyMap<string, SourceConfig>;
}

export const disabledLazyMigration: LazyMigrationConfig = {
  enabled: false,
  allowCanary: false,
  maxAttemptsPerUserPerHour: 10,
  sources: new Map(),
};

const commonKeys = [
  'kind',
  'timeout_ms',
  'max_in_flight',
  'rate_per_second',
  'burst',
  'queue_wait_ms',
  'breaker',
  'accept_mfa_challenge',
  'deadline',
  'allow_http',
];
const kindKeys: Record<SourceKind, { required: string[]; optional: string[] }> = {
  webhook: { required: ['url'], optional: ['headers', 'hmac_secret'] },
  firebase: { required: ['api_key'], optional: ['tenant_id', 'base_url'] },
  auth0: { required: ['domain', 'client_id', 'realm'], optional: ['client_secret', 'forward_user_ip', 'base_url'] },
  cognito: { required: ['region', 'client_id'], optional: ['client_secret', 'endpoint'] },
  okta: { required: ['domain'], optional: ['api_token', 'forward_user_ip', 'base_url'] },
  supabase: { required: ['url', 'api_key'], optional: ['forward_user_ip'] },
};

export function parseLazyMigrationConfig(raw: unknown, env: Record<string, string | undefined>): LazyMigrationConfig {
  if (raw === undefined || raw === null) return disabledLazyMigration;
  const block = mapping(raw, 'lazy_migration');
  allowOnly(block, 'lazy_migration', ['enabled', 'allow_canary', 'max_attempts_per_user_per_hour', 'sources']);
  const read = reader(block, 'lazy_migration', env);
  const sources = new Map<string, SourceConfig>();
  const rawSources = block.sources === undefined ? {} : mapping(block.sources, 'lazy_migration.sources');
  for (const [name, value] of Object.entries(rawSources)) {
    const path = `lazy_migration.sources.${name}`;
    if (!SOURCE_NAME.test(name)) throw new LazyConfigError(`'${path}': a source name must be 1 to 32 characters of a-z, 0-9, _ and -`);
    sources.set(name, parseSource(name, mapping(value, path), path, env));
  }
  return {
    enabled: read.bool('enabled', true),
    allowCanary: read.bool('allow_canary', false),
    maxAttemptsPerUserPerHour: read.int('max_attempts_per_user_per_hour', 10, 1, 1000),
    sources,
  };
}

function parseSource(name: string, block: Raw, path: string, env: Record<string, string | undefined>): SourceConfig {
  const kind = block.kind;
  if (typeof kind !== 'string' || !sourceKinds.includes(kind as SourceKind)) {
    throw new LazyConfigError(`'${path}.kind' must be one of ${sourceKinds.join(', ')}`);
  }
  const keys = kindKeys[kind as SourceKind];
  allowOnly(block, path, [...commonKeys, ...keys.required, ...keys.optional]);
  for (const key of keys.required) if (block[key] === undefined) throw new LazyConfigError(`'${path}.${key}' is required for kind ${kind}`);
  const read = reader(block, path, env);
  const breaker = block.breaker === undefined ? {} : mapping(block.breaker, `${path}.breaker`);
  allowOnly(breaker, `${path}.breaker`, ['consecutive_failures', 'open_ms']);
  const readBreaker = reader(breaker, `${path}.breaker`, env);
  const allowHttp = read.bool('allow_http', false);
  const deadlineText = read.str('deadline');
  const deadline = deadlineText === undefined ? undefined : Date.parse(deadlineText);
  if (deadline !== undefined && Number.isNaN(deadline)) throw new LazyConfigError(`'${path}.deadline' must be an ISO 8601 date and time`);
  const source: SourceConfig = {
    name,
    kind: kind as SourceKind,
    timeoutMs: read.int('timeout_ms', 3000, 100, 10_000),
    maxInFlight: read.int('max_in_flight', 16, 1, 1000),
    ratePerSecond: read.int('rate_per_second', 20, 1, 10_000),
    burst: read.int('burst', 40, 1, 10_000),
    queueWaitMs: read.int('queue_wait_ms', 1000, 0, 60_000),
    breakerFailures: readBreaker.int('consecutive_failures', 5, 1, 1000),
    breakerOpenMs: readBreaker.int('open_ms', 30_000, 100, 3_600_000),
    acceptMfaChallenge: read.bool('accept_mfa_challenge', true),
    deadline,
    forwardUserIp: read.bool('forward_user_ip', false),
    url: endpointOf(kind as SourceKind, read),
    headers: read.stringMap('headers'),
    hmacSecret: read.str('hmac_secret'),
    apiKey: read.str('api_key'),
    tenantId: read.str('tenant_id'),
    clientId: read.str('client_id'),
    clientSecret: read.str('client_secret'),
    realm: read.str('realm'),
    apiToken: read.str('api_token'),
  };
  checkUrl(source.url, `${path}.${urlKey(kind as SourceKind, block)}`, allowHttp);
  return source;
}

function endpointOf(kind: SourceKind, read: ReturnType<typeof reader>): string {
  const base = (value: string | undefined) => value?.replace(/\/+$/, '');
  switch (kind) {
    case 'webhook':
      return read.str('url')!;
    case 'firebase':
      return `${base(read.str('base_url')) ?? 'https://identitytoolkit.googleapis.com'}/v1/accounts:signInWithPassword`;
    case 'auth0':
      return `${base(read.str('base_url')) ?? `https://${read.str('domain')}`}/oauth/token`;
    case 'cognito':
      return read.str('endpoint') ?? `https://cognito-idp.${read.str('region')}.amazonaws.com/`;
    case 'okta':
      return `${base(read.str('base_url')) ?? `https://${read.str('domain')}`}/api/v1/authn`;
    case 'supabase':
      return `${base(read.str('url'))}/auth/v1/token?grant_type=password`;
  }
}

function urlKey(kind: SourceKind, block: Raw): string {
  if (kind === 'webhook' || kind === 'supabase') return 'url';
  if (kind === 'cognito') return block.endpoint === undefined ? 'region' : 'endpoint';
  return block.base_url === undefined ? (kind === 'firebase' ? 'base_url' : 'domain') : 'base_url';
}

// Plain HTTP only to loopback unless the operator allows it: a password must not cross a network in clear by accident.
function checkUrl(text: string, path: string, allowHttp: boolean): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new LazyConfigError(`'${path}' does not give a valid URL`);
  }
  if (url.username || url.password) throw new LazyConfigError(`'${path}' must not carry credentials in the URL`);
  if (url.protocol === 'https:') return;
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol === 'http:' && (loopback || allowHttp)) return;
  throw new LazyConfigError(`'${path}' must be an https URL (plain http only to loopback, or with allow_http: true)`);
}
