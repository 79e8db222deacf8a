import { configKeys } from '../../config/keys.js';
import type { TenantSettingKey } from '../../service-deps.js';
import { coreError, invalidField } from '../../errors.js';
import { normaliseTenantId, PUBLIC_TENANT } from './tenant-id.js';

/** Settings a tenant may override (contract-multitenancy M2): the ones identity-core reads per tenant. */
export const perTenantConfigKeys = [
  'password_reset_token_lifetime',
  'email_verification_token_lifetime',
  'passwordless_code_lifetime',
  'passwordless_max_code_input_attempts',
  'totp_max_attempts',
  'totp_rate_limit_cooldown_sec',
] as const satisfies readonly TenantSettingKey[];
const perTenant = new Set<string>(perTenantConfigKeys);

// Settings of the process itself (listening, database, hashing, imports, secrets): only config.yaml sets them. Every
// other known key is app-wide, the same for every tenant.
const baseOnlyPrefixes = ['postgresql_', 'argon2_', 'bcrypt_', 'idp_', 'imported_hash_', 'password_', 'bulk_', 'embedded_', 'webauthn_'];
const baseOnly = new Set([
  'port',
  'host',
  'base_path',
  'api_keys',
  'log_level',
  'max_server_pool_size',
  'body_limit_bytes',
  'request_timeout_ms',
  'shutdown_grace_ms',
  'supertokens_max_cdi_version',
  'supertokens_min_cdi_version',
  'metrics_port',
  'ip_allow_regex',
  'ip_deny_regex',
  'allow_embedded_database',
  'totp_secret_keys',
  'lazy_migration',
  'session_bridge',
]);
const knownKeys = new Set(configKeys.map((key) => key.name));

/** Values per key; null removes the tenant's override. */
export type CoreConfigPatch = Record<string, number | null>;

export interface TenantUpdate {
  tenantId: string;
  /** undefined: keep; null: unset; a list: replace. */
  firstFactors?: string[] | null;
  requiredSecondaryFactors?: string[] | null;
  coreConfig?: CoreConfigPatch;
}

// Fields of the older tenant API that this one refuses by name (the reference's wording, kept as is).
const olderFields: [string, string][] = [
  ['emailPasswordEnabled', 'emailPasswordEnabled'],
  ['thirdPartyEnabled', 'thirdParty'],
  ['passwordlessEnabled', 'passwordless'],
];

/** The body of PUT /recipe/multitenancy/tenant/v2, checked in the reference's order (contract T-7 rows 1–14). */
export function parseTenantUpdate(body: Record<string, unknown>, knownRoutes: ReadonlySet<string>): TenantUpdate {
  const rawId = body.tenantId;
  if (rawId !== undefined && rawId !== null && typeof rawId !== 'string') throw invalidField('tenantId');
  const tenantId = typeof rawId === 'string' ? normaliseTenantId(rawId, knownRoutes) : PUBLIC_TENANT;
  for (const [field, named] of olderFields) if (field in body) throw coreError('TENANT_INPUT_NOT_VALID', named);
  const update: TenantUpdate = { tenantId };
  if ('firstFactors' in body) update.firstFactors = parseFactors(body.firstFactors, 'firstFactors');
  if ('requiredSecondaryFactors' in body) {
    update.requiredSecondaryFactors = parseFactors(body.requiredSecondaryFactors, 'requiredSecondaryFactors');
  }
  if (body.coreConfig !== undefined && body.coreConfig !== null) update.coreConfig = parseCoreConfig(body.coreConfig, tenantId);
  return update;
}

function parseFactors(value: unknown, field: string): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.some((factor) => typeof factor !== 'string')) throw invalidField(field);
  const factors = value as string[];
  if (new Set(factors).size !== factors.length) throw coreError('FACTORS_DUPLICATE', field);
  if (factors.some((factor) => !/^[0-9a-zA-Z_.-]+$/.test(factor))) throw coreError('FACTORS_CHARACTERS', field);
  return factors;
}

function parseCoreConfig(value: unknown, tenantId: string): CoreConfigPatch {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidField('coreConfig');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return {};
  if (tenantId === PUBLIC_TENANT) throw coreError('BASE_CONFIG_READ_ONLY');
  const patch: CoreConfigPatch = {};
  for (const [key, setting] of entries) {
    if (!perTenant.has(key)) {
      if (!knownKeys.has(key)) throw coreError('INVALID_CORE_CONFIG', `Invalid config key: ${key}`);
      if (baseOnly.has(key) || baseOnlyPrefixes.some((prefix) => key.startsWith(prefix))) {
        throw coreError('INVALID_CORE_CONFIG', `${key} can only be set via the core's base config setting`);
      }
      throw coreError('INVALID_CORE_CONFIG', `You cannot set different values for ${key} for the same appId`);
    }
    if (setting === null) patch[key] = null;
    else if (typeof setting !== 'number') throw coreError('INVALID_CORE_CONFIG', `${key} must be a number`);
    else if (!Number.isSafeInteger(setting) || setting <= 0) throw coreError('INVALID_CORE_CONFIG', `${key} must be a positive integer`);
    else patch[key] = setting;
  }
  return patch;
}
