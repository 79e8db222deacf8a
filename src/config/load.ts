import fs from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { Value } from '@sinclair/typebox/value';
import { configKeys, type ConfigKey } from './keys.js';
import { parseLazyMigrationConfig } from '../lazy-migration/config.js';
import { parseSessionBridgeConfig } from '../session-bridge/config.js';
import { BlockConfigError } from './block-reader.js';
import { type Config, type LogLevel } from './config.js';
import { ConfigError } from './config-error.js';
import { parseTotpSecretKeys } from './totp-secret-keys.js';
import { parseNamedSignerKeys } from './signer-keys.js';
import { describeBase64Problem } from '../base64.js';
import { compareCdiVersions, isSupportedCdiVersion, newestCdiVersion, parseCdiVersion } from '../http/cdi-version.js';

type RawValues = Record<string, unknown>;

export interface ConfigSources {
  argv?: string[];
  env?: Record<string, string | undefined>;
  // Settings given in code (tests); they sit between the environment and the command line.
  overrides?: RawValues;
  // Told about settings that were accepted after a correction (the logger does not exist yet while loading).
  onWarning?: (message: string) => void;
}

export function loadConfig({ argv = [], env = {}, overrides = {}, onWarning = () => {} }: ConfigSources = {}): Readonly<Config> {
  const flags = parseFlags(argv);
  const values: RawValues = {};
  for (const key of configKeys) if (key.default !== undefined) values[key.name] = key.default;
  Object.assign(values, readYamlFile(flags.config, onWarning), readEnvironment(env, onWarning), overrides);
  if (flags.port !== undefined) values.port = flags.port;
  if (flags.host !== undefined) values.host = flags.host;
  return Object.freeze(validate(values, env));
}

function parseFlags(argv: string[]): { config?: string; port?: string; host?: string } {
  const flags: Record<string, string> = {};
  for (const arg of argv) {
    const match = /^--(config|port|host)=(.*)$/.exec(arg);
    if (match) flags[match[1]] = match[2];
  }
  return flags;
}

function readYamlFile(explicitPath: string | undefined, onWarning: (message: string) => void): RawValues {
  const path = explicitPath ?? 'config.yaml';
  if (!fs.existsSync(path)) {
    if (explicitPath !== undefined) throw new ConfigError(`config file '${path}' does not exist`);
    return {};
  }
  let document: unknown;
  try {
    document = parseYaml(fs.readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`config file '${path}' is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (document === null || document === undefined) return {};
  if (typeof document !== 'object' || Array.isArray(document))
    throw new ConfigError(`config file '${path}' must be a mapping of keys to values`);
  const values: RawValues = {};
  const givenAs: Record<string, string> = {};
  for (const [name, given] of Object.entries(document as RawValues)) {
    const key = findKey(name);
    if (!key) throw new ConfigError(`'${name}' in ${path} is not a known config key`);
    if (given === null) continue;
    const value = trimmed(given, `'${name}' in ${path}`, onWarning);
    const earlier = givenAs[key.name];
    if (earlier !== undefined && !sameValue(values[key.name], value)) {
      throw new ConfigError(`'${earlier}' and '${name}' in ${path} name the same setting with different values: keep one of them`);
    }
    givenAs[key.name] = name;
    values[key.name] = value;
  }
  return values;
}

// A value pasted with a trailing newline or space (a copied signer key) is meant without it.
function trimmed(value: unknown, where: string, onWarning: (message: string) => void): unknown {
  if (typeof value !== 'string' || value.trim() === value) return value;
  onWarning(`${where} had surrounding whitespace, which was removed`);
  return value.trim();
}

function sameValue(a: unknown, b: unknown): boolean {
  return typeof a === typeof b && String(a) === String(b);
}

function findKey(name: string): ConfigKey | undefined {
  return configKeys.find((key) => key.name === name || key.aliases?.includes(name));
}

// The convention of the official database images: NAME_FILE names a file holding the value of NAME, so secrets can
// come from mounted files (Docker or Kubernetes secrets) instead of the process environment.
function withFileVariables(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const resolved = { ...env };
  for (const key of configKeys) {
    for (const name of key.env) {
      const file = env[`${name}_FILE`];
      if (file === undefined || file === '') continue;
      if (env[name] !== undefined && env[name] !== '') throw new ConfigError(`${name} and ${name}_FILE are both set: keep one of them`);
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (error) {
        throw new ConfigError(`${name}_FILE: cannot read '${file}' (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
      }
      resolved[name] = text.replace(/\r?\n$/, '');
    }
  }
  return resolved;
}

function readEnvironment(given: Record<string, string | undefined>, onWarning: (message: string) => void): RawValues {
  const env = withFileVariables(given);
  const values: RawValues = {};
  for (const key of configKeys) {
    const given = key.env.filter((envName) => env[envName] !== undefined && env[envName] !== '');
    if (given.length === 0) continue;
    const [name, ...others] = given;
    const value = trimmed(unquote(env[name]!), name, onWarning) as string;
    for (const other of others) {
      if (unquote(env[other]!).trim() !== value) {
        throw new ConfigError(`${name} and ${other} name the same setting ('${key.name}') with different values: keep one of them`);
      }
    }
    values[key.name] = value;
  }
  return values;
}

const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', "'": "'", '\\': '\\' };

function unquote(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  return value.slice(1, -1).replace(/\\([ntr"'\\])/g, (_, character: string) => escapes[character]);
}

function coerce(key: ConfigKey, value: unknown): unknown {
  const type = (key.schema as { type?: string }).type;
  if (typeof value === 'string' && type === 'integer' && /^-?[0-9]+$/.test(value.trim())) return Number(value.trim());
  if (typeof value === 'string' && type === 'number' && /^-?[0-9]+(\.[0-9]+)?$/.test(value.trim())) return Number(value.trim());
  if (typeof value === 'string' && type === 'boolean' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  if (typeof value === 'number' && type === 'string') return String(value);
  return value;
}

function validate(raw: RawValues, env: Record<string, string | undefined>): Config {
  const values: RawValues = {};
  for (const key of configKeys) {
    if (raw[key.name] === undefined) continue;
    const value = coerce(key, raw[key.name]);
    if (!Value.Check(key.schema, value)) throw new ConfigError(describeTypeError(key, value));
    values[key.name] = value;
  }
  const get = <T>(name: string) => values[name] as T;
  const positive = (name: string, minimum = 1) => {
    if (get<number>(name) < minimum) throw new ConfigError(`'${name}' must be ${minimum === 1 ? '> 0' : `>= ${minimum}`}`);
  };
  positive('passwordless_code_lifetime');
  positive('passwordless_max_code_input_attempts');
  positive('totp_max_attempts');
  positive('totp_rate_limit_cooldown_sec');
  const minSecretBits = get<number>('totp_min_imported_secret_bits');
  if (minSecretBits < 64 || minSecretBits > 160) throw new ConfigError(`'totp_min_imported_secret_bits' must be from 64 to 160`);
  const hashingAlg = get<string>('password_hashing_alg').toUpperCase();
  if (hashingAlg !== 'ARGON2' && hashingAlg !== 'BCRYPT')
    throw new ConfigError(`'password_hashing_alg' must be one of 'ARGON2' or 'BCRYPT'`);
  if (get<number>('bcrypt_log_rounds') < 1) throw new ConfigError(`'bcrypt_log_rounds' must be >= 1`);
  if (hashingAlg === 'ARGON2') {
    for (const name of ['argon2_iterations', 'argon2_memory_kb', 'argon2_parallelism', 'argon2_hashing_pool_size']) {
      if (get<number>(name) < 1) throw new ConfigError(`'${name}' must be >= 1`);
    }
    if (get<number>('argon2_hashing_pool_size') > get<number>('max_server_pool_size')) {
      throw new ConfigError(`'argon2_hashing_pool_size' must be <= 'max_server_pool_size'`);
    }
  }
  if (!get<boolean>('allow_embedded_database') && get('postgresql_connection_uri') === undefined && get('postgresql_host') === undefined) {
    throw new ConfigError(
      'no database configured: set DATABASE_URL (or postgresql_connection_uri or postgresql_host); ' +
        "the embedded PostgreSQL is off ('allow_embedded_database' is false)",
    );
  }
  const signerKey = get<string | undefined>('idp_password_hashing_signer_key');
  const signerKeyProblem = signerKey ? describeBase64Problem(signerKey) : undefined;
  if (signerKeyProblem) throw new ConfigError(`'idp_password_hashing_signer_key' is not valid base64: ${signerKeyProblem}`);
  const namedKeys = parseNamedSignerKeys(get<string | undefined>('idp_password_hashing_signer_keys'));
  if (typeof namedKeys === 'string') throw new ConfigError(`'idp_password_hashing_signer_keys' ${namedKeys}`);
  checkSessionSettings(get);
  if (!['session', 'transaction'].includes(get<string>('postgresql_pool_mode'))) {
    throw new ConfigError(`'postgresql_pool_mode' must be one of 'session' or 'transaction'`);
  }
  const logLevel = get<string>('log_level').toUpperCase();
  if (!['DEBUG', 'INFO', 'WARN', 'ERROR', 'NONE'].includes(logLevel)) {
    throw new ConfigError(`'log_level' must be one of 'DEBUG', 'INFO', 'WARN', 'ERROR' or 'NONE'`);
  }
  return {
    ...(values as unknown as Config),
    log_level: logLevel as LogLevel,
    password_hashing_alg: hashingAlg,
    api_keys: parseApiKeys(get<string | undefined>('api_keys')),
    base_path: normaliseBasePath(get<string>('base_path')),
    ...parseCdiBounds(get('supertokens_max_cdi_version'), get('supertokens_min_cdi_version')),
    ip_allow_regex: compileRegex('ip_allow_regex', get('ip_allow_regex')),
    ip_deny_regex: compileRegex('ip_deny_regex', get('ip_deny_regex')),
    recent_token_reuse_behaviour: get<string>('recent_token_reuse_behaviour').toUpperCase() as Config['recent_token_reuse_behaviour'],
    lazy_migration: parseBlock('lazy_migration', get('lazy_migration'), env, parseLazyMigrationConfig),
    session_bridge: parseBlock('session_bridge', get('session_bridge'), env, parseSessionBridgeConfig),
    totp_secret_keys: parseTotpSecretKeys(get<string | undefined>('totp_secret_keys')),
  };
}

// The reference core's bounds and texts (contract S-8); they hold for every loaded config.
function checkSessionSettings(get: <T>(name: string) => T): void {
  const accessValidity = get<number>('access_token_validity');
  if (accessValidity < 1 || accessValidity > 86_400_000) {
    throw new ConfigError(`'access_token_validity' must be between 1 and 86400000 seconds inclusive.`);
  }
  if (get<number>('refresh_token_validity') * 60 <= accessValidity) {
    throw new ConfigError(`'refresh_token_validity' must be strictly greater than 'access_token_validity'.`);
  }
  // The reference core takes fractions of an hour (the SDK's rotation tests use 0.001 h), so only a positive number is asked for.
  if (!(get<number>('access_token_dynamic_signing_key_update_interval') > 0)) {
    throw new ConfigError(`'access_token_dynamic_signing_key_update_interval' must be a positive number of hours.`);
  }
  const jitter = get<number>('access_token_validity_jitter');
  if (jitter < 0 || jitter > 0.25) throw new ConfigError(`'access_token_validity_jitter' must be between 0 and 0.25 inclusive.`);
  const grace = get<number>('refresh_token_rotation_grace_period');
  if (grace < 0 || grace > 300) {
    throw new ConfigError(`'refresh_token_rotation_grace_period' must be between 0 and 300 seconds inclusive.`);
  }
  if (!['TOKEN_THEFT', 'UNAUTHORISED'].includes(get<string>('recent_token_reuse_behaviour').toUpperCase())) {
    throw new ConfigError(`'recent_token_reuse_behaviour' must be one of 'TOKEN_THEFT' or 'UNAUTHORISED'`);
  }
}

// A nested block (lazy_migration, session_bridge) comes as a YAML mapping, or as JSON text from the environment.
function parseBlock<T>(
  name: string,
  value: unknown,
  env: Record<string, string | undefined>,
  parse: (block: unknown, env: Record<string, string | undefined>) => T,
): T {
  let block = value;
  if (typeof value === 'string') {
    try {
      block = JSON.parse(value);
    } catch {
      throw new ConfigError(`'${name}' from the environment must be JSON`);
    }
  }
  try {
    return parse(block, env);
  } catch (error) {
    if (error instanceof BlockConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

function describeTypeError(key: ConfigKey, value: unknown): string {
  const type = (key.schema as { type?: string }).type;
  const minimum = (key.schema as { minimum?: number }).minimum;
  if (type === 'integer' && typeof value === 'number' && Number.isInteger(value) && minimum !== undefined) {
    return `'${key.name}' must be >= ${minimum}`;
  }
  const expected = type === 'integer' ? 'an integer' : type === 'boolean' ? 'true or false' : 'a string';
  return `'${key.name}' must be ${expected}`;
}

function parseApiKeys(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const keys = value.replace(/\s/g, '').split(',');
  for (const key of keys) {
    if (key.length < 20) throw new ConfigError('One of the API keys is too short. Please use at least 20 characters');
    if (!/^[A-Za-z0-9=-]+$/.test(key)) {
      throw new ConfigError(`Invalid characters in API key. Please only use '=', '-' and alpha-numeric (including capitals)`);
    }
  }
  return keys;
}

function normaliseBasePath(value: string): string {
  if (/\s/.test(value)) throw new ConfigError(`'base_path' cannot contain spaces`);
  const collapsed = `/${value}`.replace(/\/+/g, '/').replace(/\/$/, '');
  return collapsed.toLowerCase();
}

function parseCdiBounds(maxText: string | undefined, minText: string | undefined) {
  const parseBound = (name: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const version = parseCdiVersion(text);
    if (!version || !isSupportedCdiVersion(version)) throw new ConfigError(`'${name}' is not a supported cdi-version: ${text}`);
    return version;
  };
  const max = parseBound('supertokens_max_cdi_version', maxText) ?? newestCdiVersion;
  const min = parseBound('supertokens_min_cdi_version', minText);
  if (min && compareCdiVersions(min, max) > 0) {
    throw new ConfigError(`'supertokens_min_cdi_version' must be <= 'supertokens_max_cdi_version'`);
  }
  return { max_cdi_version: max, min_cdi_version: min };
}

function compileRegex(name: string, source: string | undefined): RegExp | undefined {
  if (source === undefined) return undefined;
  try {
    return new RegExp(`^(?:${source})$`);
  } catch {
    throw new ConfigError(`'${name}' is not a valid regular expression`);
  }
}
