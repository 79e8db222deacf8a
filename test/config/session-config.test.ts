import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { testConfig } from '../helper.js';

// S-8: the reference core's bounds and texts, checked at startup.
describe('session settings', () => {
  it('has the reference defaults', () => {
    const config = testConfig();
    expect({
      access: config.access_token_validity,
      refresh: config.refresh_token_validity,
      interval: config.access_token_dynamic_signing_key_update_interval,
      jitter: config.access_token_validity_jitter,
      grace: config.refresh_token_rotation_grace_period,
      reuse: config.recent_token_reuse_behaviour,
    }).toEqual({ access: 3600, refresh: 144000, interval: 168, jitter: 0.05, grace: 30, reuse: 'TOKEN_THEFT' });
  });

  it.each([
    [{ access_token_validity: 0 }, `'access_token_validity' must be between 1 and 86400000 seconds inclusive.`],
    [{ access_token_validity: 86_400_001 }, `'access_token_validity' must be between 1 and 86400000 seconds inclusive.`],
    [
      { access_token_validity: 7200, refresh_token_validity: 120 },
      `'refresh_token_validity' must be strictly greater than 'access_token_validity'.`,
    ],
    [
      { access_token_dynamic_signing_key_update_interval: 0 },
      `'access_token_dynamic_signing_key_update_interval' must be a positive number of hours.`,
    ],
    [
      { access_token_dynamic_signing_key_update_interval: -0.5 },
      `'access_token_dynamic_signing_key_update_interval' must be a positive number of hours.`,
    ],
    [{ access_token_validity_jitter: 0.3 }, `'access_token_validity_jitter' must be between 0 and 0.25 inclusive.`],
    [{ refresh_token_rotation_grace_period: 301 }, `'refresh_token_rotation_grace_period' must be between 0 and 300 seconds inclusive.`],
    [{ recent_token_reuse_behaviour: 'IGNORE' }, `'recent_token_reuse_behaviour' must be one of 'TOKEN_THEFT' or 'UNAUTHORISED'`],
  ])('refuses %j', (overrides, message) => {
    expect(() => testConfig(overrides)).toThrow(message);
  });

  it('reads the old name of the key interval and a fractional jitter from text', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-session-')), 'config.yaml');
    fs.writeFileSync(file, 'access_token_signing_key_update_interval: 24\n');
    const config = loadConfig({ argv: [`--config=${file}`], env: { ACCESS_TOKEN_VALIDITY_JITTER: '0.1' } });
    expect([config.access_token_dynamic_signing_key_update_interval, config.access_token_validity_jitter]).toEqual([24, 0.1]);
  });

  it('takes a fractional number of hours for the key interval, from the file and from the environment', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-session-')), 'config.yaml');
    fs.writeFileSync(file, 'access_token_dynamic_signing_key_update_interval: 0.001\n');
    expect(loadConfig({ argv: [`--config=${file}`], env: {} }).access_token_dynamic_signing_key_update_interval).toBe(0.001);
    const fromEnv = loadConfig({ argv: [], env: { ACCESS_TOKEN_DYNAMIC_SIGNING_KEY_UPDATE_INTERVAL: '0.5' } });
    expect(fromEnv.access_token_dynamic_signing_key_update_interval).toBe(0.5);
  });
});
