import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { configKeys } from '../../src/config/keys.js';

function yamlFile(text: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-config-')), 'config.yaml');
  fs.writeFileSync(file, text);
  return file;
}

const load = (options: { yaml?: string; env?: Record<string, string>; argv?: string[] } = {}) =>
  loadConfig({ argv: [`--config=${yamlFile(options.yaml ?? '')}`, ...(options.argv ?? [])], env: options.env ?? {} });

describe('config precedence', () => {
  it('uses the defaults of the contract', () => {
    const config = load();
    expect([config.port, config.host, config.passwordless_code_lifetime, config.passwordless_max_code_input_attempts]).toEqual([3567, 'localhost', 900000, 5]);
    expect([config.password_hashing_alg, config.bcrypt_log_rounds, config.argon2_memory_kb, config.api_keys]).toEqual(['BCRYPT', 11, 87795, undefined]);
    expect(config.max_cdi_version.text).toBe('5.6');
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('orders defaults < yaml < env < flags', () => {
    const yaml = 'port: 4000\nhost: yaml-host\nbcrypt_log_rounds: 9\nlog_level: debug\n';
    expect(load({ yaml }).port).toBe(4000);
    expect(load({ yaml }).log_level).toBe('DEBUG');
    expect(load({ yaml, env: { PORT: '5000' } }).port).toBe(5000);
    expect(load({ yaml, env: { PORT: '5000', BCRYPT_LOG_ROUNDS: '' } }).bcrypt_log_rounds).toBe(9);
    const flagged = load({ yaml, env: { PORT: '5000', HOST: 'env-host' }, argv: ['--port=6000', '--host=flag-host'] });
    expect([flagged.port, flagged.host]).toEqual([6000, 'flag-host']);
  });

  it('reads env aliases, unwraps quoted values and prefers the primary signer-key name', () => {
    expect(load({ env: { DATABASE_URL: 'postgresql://a/b' } }).postgresql_connection_uri).toBe('postgresql://a/b');
    expect(load({ env: { FIREBASE_PASSWORD_HASHING_SIGNER_KEY: '"a\\nb"' } }).idp_password_hashing_signer_key).toBe('a\nb');
    const both = load({ yaml: 'firebase_password_hashing_signer_key: old\nidp_password_hashing_signer_key: new\n' });
    expect(both.idp_password_hashing_signer_key).toBe('new');
    expect(load({ yaml: 'firebase_password_hashing_signer_key: old\n' }).idp_password_hashing_signer_key).toBe('old');
  });

  it('normalises base_path and api_keys', () => {
    expect(load({ env: { BASE_PATH: 'auth//v1/' } }).base_path).toBe('/auth/v1');
    expect(load({ env: { API_KEYS: ' aaaaaaaaaaaaaaaaaaaa , bbbbbbbbbbbbbbbbbbbb-=' } }).api_keys).toEqual(['aaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbb-=']);
  });
});

describe('config errors name the key and the problem', () => {
  it.each([
    [{ env: { API_KEYS: 'short' } }, 'One of the API keys is too short. Please use at least 20 characters'],
    [{ env: { API_KEYS: 'aaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbb!' } }, `Invalid characters in API key. Please only use '=', '-' and alpha-numeric (including capitals)`],
    [{ env: { PASSWORDLESS_CODE_LIFETIME: '0' } }, `'passwordless_code_lifetime' must be > 0`],
    [{ env: { PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS: '-1' } }, `'passwordless_max_code_input_attempts' must be > 0`],
    [{ env: { PASSWORD_HASHING_ALG: 'md5' } }, `'password_hashing_alg' must be one of 'ARGON2' or 'BCRYPT'`],
    [{ env: { BCRYPT_LOG_ROUNDS: '0' } }, `'bcrypt_log_rounds' must be >= 1`],
    [{ env: { PASSWORD_HASHING_ALG: 'argon2', ARGON2_ITERATIONS: '0' } }, `'argon2_iterations' must be >= 1`],
    [{ env: { PASSWORD_HASHING_ALG: 'argon2', ARGON2_HASHING_POOL_SIZE: '11' } }, `'argon2_hashing_pool_size' must be <= 'max_server_pool_size'`],
    [{ env: { PORT: 'eighty' } }, `'port' must be an integer`],
    [{ env: { PASSWORD_REHASH_ON_SIGNIN: 'yes' } }, `'password_rehash_on_signin' must be true or false`],
    [{ env: { LOG_LEVEL: 'loud' } }, `'log_level' must be one of 'DEBUG', 'INFO', 'WARN', 'ERROR' or 'NONE'`],
    [{ env: { BASE_PATH: '/a b' } }, `'base_path' cannot contain spaces`],
    [{ env: { SUPERTOKENS_MAX_CDI_VERSION: '9.9' } }, `'supertokens_max_cdi_version' is not a supported cdi-version: 9.9`],
    [{ env: { SUPERTOKENS_MAX_CDI_VERSION: '4.0', SUPERTOKENS_MIN_CDI_VERSION: '5.0' } }, `'supertokens_min_cdi_version' must be <= 'supertokens_max_cdi_version'`],
    [{ env: { IP_DENY_REGEX: '(' } }, `'ip_deny_regex' is not a valid regular expression`],
    [{ env: { POSTGRESQL_CONNECTION_POOL_SIZE: '0' } }, `'postgresql_connection_pool_size' must be >= 1`],
    [{ yaml: 'no_such_key: 1\n' }, `'no_such_key' in`],
    [{ yaml: 'port: [1\n' }, 'is not valid YAML'],
  ])('%j', (options, message) => {
    expect(() => load(options)).toThrow(message);
  });

  it('refuses a --config file that does not exist', () => {
    expect(() => loadConfig({ argv: ['--config=/nonexistent/config.yaml'] })).toThrow(`config file '/nonexistent/config.yaml' does not exist`);
  });
});

describe('config.yaml', () => {
  const text = fs.readFileSync('config.yaml', 'utf8');

  it('lists every key, commented out, with its env name and default', () => {
    for (const key of configKeys) {
      const line = text.split('\n').find((candidate) => candidate.startsWith(`# ${key.name}:`));
      expect(line, key.name).toBeDefined();
      if (key.default !== undefined && !key.defaultText) expect(line).toBe(`# ${key.name}: ${JSON.stringify(key.default)}`);
      const description = text.split('\n')[text.split('\n').indexOf(line!) - 1];
      for (const env of key.env) expect(description, key.name).toContain(env);
    }
  });

  it('loads as the defaults when used as it is', () => {
    expect(loadConfig({ argv: ['--config=config.yaml'] })).toEqual(loadConfig({ argv: [`--config=${yamlFile('')}`] }));
  });
});
