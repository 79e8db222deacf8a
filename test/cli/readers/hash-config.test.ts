import { describe, expect, it } from 'vitest';
import { parseHashConfig } from '../../../src/cli/readers/hash-config.js';

const key = 'gRhC3eDeQOdyEn4bMd9c6kxguWVmcIVq/SKa0JDPFeM6TcEevkaW56sIWfx88OHbJKnCXdWscZx0l2WbCJ1wbg==';
const expected = { signerKey: Buffer.from(key, 'base64'), saltSeparator: 'Bw==', rounds: 8, memCost: 14 };

describe('parseHashConfig', () => {
  it.each([
    [
      'the console block',
      `hash_config {\n  algorithm: SCRYPT,\n  base64_signer_key: ${key},\n  base64_salt_separator: Bw==,\n  rounds: 8,\n  mem_cost: 14,\n}\n`,
    ],
    [
      'the block on one line, quoted values',
      `hash_config { algorithm: SCRYPT, base64_signer_key: "${key}", base64_salt_separator: "Bw==", rounds: 8, mem_cost: 14 }`,
    ],
    ['bare JSON', JSON.stringify({ algorithm: 'SCRYPT', base64_signer_key: key, base64_salt_separator: 'Bw==', rounds: 8, mem_cost: 14 })],
    [
      'JSON under hash_config, numbers as strings',
      JSON.stringify({ hash_config: { base64_signer_key: key, base64_salt_separator: 'Bw==', rounds: '8', mem_cost: '14' } }),
    ],
    ['camelCase JSON (Admin SDK options)', JSON.stringify({ signerKey: key, saltSeparator: 'Bw==', rounds: 8, memCost: 14 })],
    [
      'URL-safe Base64 without padding',
      `base64_signer_key: ${key.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}\nbase64_salt_separator: Bw\nrounds: 8\nmem_cost: 14`,
    ],
  ])('reads %s', (_name, text) => {
    expect(parseHashConfig(text)).toEqual(expected);
  });

  it.each([
    ['no signer key', 'hash_config { base64_salt_separator: Bw==, rounds: 8, mem_cost: 14 }', 'hash config is missing base64_signer_key'],
    ['a signer key that is not Base64', 'base64_signer_key: a*b, rounds: 8, mem_cost: 14', 'base64_signer_key is not valid Base64'],
    [
      'a bad separator',
      `base64_signer_key: ${key}, base64_salt_separator: B, rounds: 8, mem_cost: 14`,
      'base64_salt_separator is not valid Base64',
    ],
    [
      'rounds out of range',
      `base64_signer_key: ${key}, rounds: 0, mem_cost: 14`,
      'hash config rounds must be an integer from 1 to 32, got 0',
    ],
    [
      'mem_cost not a number',
      `base64_signer_key: ${key}, rounds: 8, mem_cost: lots`,
      'hash config mem_cost must be an integer from 1 to 20, got lots',
    ],
    [
      'another algorithm',
      `algorithm: BCRYPT, base64_signer_key: ${key}, rounds: 8, mem_cost: 14`,
      "hash config algorithm is BCRYPT; only the platform's SCRYPT is supported",
    ],
    ['broken JSON', '{"rounds": 8,', 'hash config looks like JSON but does not parse'],
    ['nothing useful', 'hello', 'hash config has no "name: value" pairs'],
  ])('rejects %s', (_name, text, message) => {
    expect(() => parseHashConfig(text)).toThrow(message);
  });
});
