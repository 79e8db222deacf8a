import { configKeys } from '../../config/keys.js';
import type { Config } from '../../config/config.js';

// What GET /<t>/recipe/dashboard/tenant/core-config lists (contract-multitenancy T-4, D7): first the settings a tenant
// may set for itself, then app-wide settings an operator may want to see there. Never a secret (API keys, signer and
// TOTP keys, database settings) nor a setting that names a host or a file.
const perTenant = [
  'password_reset_token_lifetime',
  'email_verification_token_lifetime',
  'passwordless_code_lifetime',
  'passwordless_max_code_input_attempts',
  'totp_max_attempts',
  'totp_rate_limit_cooldown_sec',
] as const;

const appWide = [
  'access_token_validity',
  'refresh_token_validity',
  'access_token_dynamic_signing_key_update_interval',
  'refresh_token_rotation_grace_period',
  'recent_token_reuse_behaviour',
  'password_hashing_alg',
  'bcrypt_log_rounds',
  'argon2_iterations',
  'argon2_memory_kb',
  'argon2_parallelism',
  'signin_failure_min_duration_ms',
  'costly_signin_failures_per_account',
  'costly_signin_failures_per_client',
  'dashboard_session_validity_ms',
] as const;

const possibleValues: Partial<Record<string, string[]>> = {
  password_hashing_alg: ['BCRYPT', 'ARGON2'],
  recent_token_reuse_behaviour: ['TOKEN_THEFT', 'UNAUTHORISED'],
};

export type ConfigValue = string | number | boolean | null;

export interface CoreConfigField {
  key: string;
  valueType: 'string' | 'boolean' | 'number' | 'enum';
  value: ConfigValue;
  description: string;
  isDifferentAcrossTenants: boolean;
  possibleValues: string[] | null;
  isNullable: boolean;
  defaultValue: ConfigValue;
  isPluginProperty: boolean;
  isPluginPropertyEditable: boolean;
}

function valueTypeOf(name: string, schemaType: unknown): CoreConfigField['valueType'] {
  if (possibleValues[name]) return 'enum';
  if (schemaType === 'integer' || schemaType === 'number') return 'number';
  if (schemaType === 'boolean') return 'boolean';
  return 'string';
}

/**
 * The fields with their effective values: the configuration's, replaced key by key by `tenantOverrides` for the
 * per-tenant settings (a tenant's own `coreConfig`; `public` has none, its settings are config.yaml's).
 */
export function coreConfigFields(config: Readonly<Config>, tenantOverrides: Readonly<Record<string, unknown>> = {}): CoreConfigField[] {
  const describe = (name: string, differs: boolean): CoreConfigField => {
    const key = configKeys.find((candidate) => candidate.name === name);
    if (!key) throw new Error(`unknown setting ${name}`);
    const own = differs && Object.hasOwn(tenantOverrides, name) ? tenantOverrides[name] : undefined;
    const value = (own ?? (config as unknown as Record<string, unknown>)[name] ?? null) as ConfigValue;
    return {
      key: name,
      valueType: valueTypeOf(name, (key.schema as { type?: unknown }).type),
      value,
      description: key.description,
      isDifferentAcrossTenants: differs,
      possibleValues: possibleValues[name] ?? null,
      isNullable: key.default === undefined,
      defaultValue: (key.default ?? null) as ConfigValue,
      isPluginProperty: false,
      isPluginPropertyEditable: false,
    };
  };
  return [...perTenant.map((name) => describe(name, true)), ...appWide.map((name) => describe(name, false))];
}
