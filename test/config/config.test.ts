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
    expect([config.port, config.host, config.passwordless_code_lifetime, config.passwordless_max_code_input_attempts]).toEqual([
      3567,
      'localhost',
      900000,
      5,
    ]);
    expect([config.password_hashing_alg, config.bcrypt_log_rounds, config.argon2_memory_kb, config.api_keys]).toEqual([
      'BCRYPT',
      11,
      87795,
      undefined,
    ]);
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

  it('reads env aliases and unwraps quoted values', () => {
    expect(load({ env: { DATABASE_URL: 'postgresql://a/b' } }).postgresql_connection_uri).toBe('postgresql://a/b');
    expect(load({ env: { FIREBASE_PASSWORD_HASHING_SIGNER_KEY: '"c2lnbmVy\\n"' } }).idp_password_hashing_signer_key).toBe('c2lnbmVy');
    expect(load({ yaml: 'firebase_password_hashing_signer_key: b2xk\n' }).idp_password_hashing_signer_key).toBe('b2xk');
  });

  it('reads a secret from the file NAME_FILE names, without its final newline', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-secret-'));
    fs.writeFileSync(path.join(dir, 'signer'), 'c2lnbmVy\n');
    fs.writeFileSync(path.join(dir, 'keys'), 'a-long-api-key-of-20-chars-or-more');
    fs.writeFileSync(path.join(dir, 'db'), 'pass word\n');
    const config = load({
      env: {
        IDP_PASSWORD_HASHING_SIGNER_KEY_FILE: path.join(dir, 'signer'),
        API_KEYS_FILE: path.join(dir, 'keys'),
        POSTGRESQL_PASSWORD_FILE: path.join(dir, 'db'),
      },
    });
    expect(config.idp_password_hashing_signer_key).toBe('c2lnbmVy');
    expect(config.api_keys).toEqual(['a-long-api-key-of-20-chars-or-more']);
    expect(config.postgresql_password).toBe('pass word');
    expect(() => load({ env: { API_KEYS: 'a-long-api-key-of-20-chars-or-more', API_KEYS_FILE: path.join(dir, 'keys') } })).toThrow(
      'API_KEYS and API_KEYS_FILE are both set: keep one of them',
    );
    expect(() => load({ env: { API_KEYS_FILE: path.join(dir, 'missing') } })).toThrow(
      `API_KEYS_FILE: cannot read '${path.join(dir, 'missing')}' (ENOENT)`,
    );
  });

  it('accepts a setting given under its name and its alias when both say the same', () => {
    const yaml = 'firebase_password_hashing_signer_key: c2FtZQ==\nidp_password_hashing_signer_key: c2FtZQ==\n';
    expect(load({ yaml }).idp_password_hashing_signer_key).toBe('c2FtZQ==');
    const env = { IDP_PASSWORD_HASHING_SIGNER_KEY: 'c2FtZQ==', FIREBASE_PASSWORD_HASHING_SIGNER_KEY: 'c2FtZQ==\n' };
    expect(load({ env }).idp_password_hashing_signer_key).toBe('c2FtZQ==');
  });

  it('normalises base_path and api_keys', () => {
    expect(load({ env: { BASE_PATH: 'auth//v1/' } }).base_path).toBe('/auth/v1');
    expect(load({ env: { API_KEYS: ' aaaaaaaaaaaaaaaaaaaa , bbbbbbbbbbbbbbbbbbbb-=' } }).api_keys).toEqual([
      'aaaaaaaaaaaaaaaaaaaa',
      'bbbbbbbbbbbbbbbbbbbb-=',
    ]);
  });
});

describe('config values with surrounding whitespace', () => {
  const loadWarned = (options: { yaml?: string; env?: Record<string, string> }) => {
    const warnings: string[] = [];
    const file = yamlFile(options.yaml ?? '');
    const config = loadConfig({ argv: [`--config=${file}`], env: options.env ?? {}, onWarning: (message) => warnings.push(message) });
    return { config, warnings, file };
  };

  it('trims a signer key pasted with its newline and warns without quoting it', () => {
    const { config, warnings } = loadWarned({ env: { IDP_PASSWORD_HASHING_SIGNER_KEY: 'c2lnbmVyLWtleQ==\n' } });
    expect(config.idp_password_hashing_signer_key).toBe('c2lnbmVyLWtleQ==');
    expect(warnings).toEqual(['IDP_PASSWORD_HASHING_SIGNER_KEY had surrounding whitespace, which was removed']);
  });

  it('trims values of the config file and names the key and the file', () => {
    const { config, warnings, file } = loadWarned({ yaml: 'firebase_password_hashing_signer_key: "c2lnbmVy \\n"\nhost: " 0.0.0.0"\n' });
    expect([config.idp_password_hashing_signer_key, config.host]).toEqual(['c2lnbmVy', '0.0.0.0']);
    expect(warnings).toEqual([
      `'firebase_password_hashing_signer_key' in ${file} had surrounding whitespace, which was removed`,
      `'host' in ${file} had surrounding whitespace, which was removed`,
    ]);
  });

  it('says nothing when no value needed trimming', () => {
    expect(loadWarned({ env: { IDP_PASSWORD_HASHING_SIGNER_KEY: 'c2lnbmVy', PORT: '4000' } }).warnings).toEqual([]);
  });
});

const notBase64 = `'idp_password_hashing_signer_key' is not valid base64`;

describe('config errors name the key and the problem', () => {
  it.each([
    [{ env: { API_KEYS: 'short' } }, 'One of the API keys is too short. Please use at least 20 characters'],
    [
      { env: { API_KEYS: 'aaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbb!' } },
      `Invalid characters in API key. Please only use '=', '-' and alpha-numeric (including capitals)`,
    ],
    [{ env: { PASSWORDLESS_CODE_LIFETIME: '0' } }, `'passwordless_code_lifetime' must be > 0`],
    [{ env: { PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS: '-1' } }, `'passwordless_max_code_input_attempts' must be > 0`],
    [{ env: { PASSWORD_HASHING_ALG: 'md5' } }, `'password_hashing_alg' must be one of 'ARGON2' or 'BCRYPT'`],
    [{ env: { BCRYPT_LOG_ROUNDS: '0' } }, `'bcrypt_log_rounds' must be >= 1`],
    [{ env: { PASSWORD_HASHING_ALG: 'argon2', ARGON2_ITERATIONS: '0' } }, `'argon2_iterations' must be >= 1`],
    [
      { env: { PASSWORD_HASHING_ALG: 'argon2', ARGON2_HASHING_POOL_SIZE: '11' } },
      `'argon2_hashing_pool_size' must be <= 'max_server_pool_size'`,
    ],
    [{ env: { PORT: 'eighty' } }, `'port' must be an integer`],
    [{ env: { PASSWORD_REHASH_ON_SIGNIN: 'yes' } }, `'password_rehash_on_signin' must be true or false`],
    [{ env: { LOG_LEVEL: 'loud' } }, `'log_level' must be one of 'DEBUG', 'INFO', 'WARN', 'ERROR' or 'NONE'`],
    [{ env: { BASE_PATH: '/a b' } }, `'base_path' cannot contain spaces`],
    [{ env: { SUPERTOKENS_MAX_CDI_VERSION: '9.9' } }, `'supertokens_max_cdi_version' is not a supported cdi-version: 9.9`],
    [
      { env: { SUPERTOKENS_MAX_CDI_VERSION: '4.0', SUPERTOKENS_MIN_CDI_VERSION: '5.0' } },
      `'supertokens_min_cdi_version' must be <= 'supertokens_max_cdi_version'`,
    ],
    [{ env: { IP_DENY_REGEX: '(' } }, `'ip_deny_regex' is not a valid regular expression`],
    [{ env: { POSTGRESQL_CONNECTION_POOL_SIZE: '0' } }, `'postgresql_connection_pool_size' must be >= 1`],
    [{ yaml: 'no_such_key: 1\n' }, `'no_such_key' in`],
    [
      { env: { IDP_PASSWORD_HASHING_SIGNER_KEY: 'bmV3', FIREBASE_PASSWORD_HASHING_SIGNER_KEY: 'b2xk' } },
      `IDP_PASSWORD_HASHING_SIGNER_KEY and FIREBASE_PASSWORD_HASHING_SIGNER_KEY name the same setting ('idp_password_hashing_signer_key') with different values: keep one of them`,
    ],
    [{ env: { PORT: '4000', SUPERTOKENS_PORT: '4001' } }, `PORT and SUPERTOKENS_PORT name the same setting ('port') with different values`],
    [
      { yaml: 'firebase_password_hashing_signer_key: b2xk\nidp_password_hashing_signer_key: bmV3\n' },
      `'firebase_password_hashing_signer_key' and 'idp_password_hashing_signer_key' in `,
    ],
    [
      { yaml: 'idp_password_hashing_pool_size: 2\nfirebase_password_hashing_pool_size: 3\n' },
      `'idp_password_hashing_pool_size' and 'firebase_password_hashing_pool_size' in `,
    ],
    [{ env: { IDP_PASSWORD_HASHING_SIGNER_KEY: 'c2ln!bmVy' } }, `${notBase64}: character 5 of 9 is not in the base64 alphabet`],
    [{ env: { IDP_PASSWORD_HASHING_SIGNER_KEY: 'c2lu Z2xl' } }, `${notBase64}: character 5 of 9 is not in the base64 alphabet`],
    [{ env: { IDP_PASSWORD_HASHING_SIGNER_KEY: 'c2lnb' } }, `${notBase64}: its length (5 characters without padding) cannot be base64`],
    [{ env: { IDP_PASSWORD_HASHING_SIGNER_KEY: 'c2l=nbmVy' } }, `${notBase64}: the padding is wrong`],
    [{ env: { IDP_PASSWORD_HASHING_SIGNER_KEY: 'ab+c-d==' } }, `${notBase64}: it mixes the standard (+ /) and URL-safe (- _) alphabets`],
    [
      { env: { ALLOW_EMBEDDED_DATABASE: 'false' } },
      'no database configured: set DATABASE_URL (or postgresql_connection_uri or postgresql_host); ' +
        "the embedded PostgreSQL is off ('allow_embedded_database' is false)",
    ],
    [{ yaml: 'port: [1\n' }, 'is not valid YAML'],
  ])('%j', (options, message) => {
    expect(() => load(options)).toThrow(message);
  });

  it('refuses a --config file that does not exist', () => {
    expect(() => loadConfig({ argv: ['--config=/nonexistent/config.yaml'] })).toThrow(
      `config file '/nonexistent/config.yaml' does not exist`,
    );
  });
});

// The operator edits config.yaml (the README says so), so these tests read what it documents, not what it sets:
// a line the operator uncommented still counts as the key's line, and only the commented defaults are loaded.
describe('config.yaml', () => {
  const lines = fs.readFileSync('config.yaml', 'utf8').split('\n');
  const documentedLine = (name: string) => lines.findIndex((line) => line.startsWith(`# ${name}:`) || line.startsWith(`${name}:`));

  it('lists every key with its env name, and its default when the key is commented out', () => {
    for (const key of configKeys) {
      const index = documentedLine(key.name);
      expect(index, key.name).toBeGreaterThan(0);
      const line = lines[index];
      const documentsDefault = line.startsWith('#') && key.default !== undefined && !key.defaultText;
      if (documentsDefault) expect(line).toBe(`# ${key.name}: ${JSON.stringify(key.default)}`);
      for (const env of key.env) expect(lines[index - 1], key.name).toContain(env);
    }
  });

  it('documents defaults that load as the defaults', () => {
    const commentedSettings = lines.filter((line) => /^# [a-z0-9_]+:/.test(line)).map((line) => line.slice(2).replace(/ +# .*$/, ''));
    expect(load({ yaml: commentedSettings.join('\n') })).toEqual(load());
  });
});
