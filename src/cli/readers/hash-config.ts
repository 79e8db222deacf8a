import fs from 'node:fs';
import { decodeEitherBase64 } from '../../base64.js';
import { IDP_SCRYPT_LIMITS } from '../../hashing/idp-scrypt.js';

/** The project's password-hash parameters, as the platform console shows them. */
export interface HashConfig {
  signerKey: Buffer;
  /** Standard Base64, ready to go into the `s=` part of a `$f_scrypt$` hash. */
  saltSeparator: string;
  rounds: number;
  memCost: number;
  /** An Identity Platform tenant's run (--tenant): the core's idp_password_hashing_signer_keys holds its key under this name. */
  keyName?: string;
}

export class HashConfigError extends Error {}

export function readHashConfig(path: string): HashConfig {
  return parseHashConfig(fs.readFileSync(path, 'utf8'));
}

// Accepts the console's block (`hash_config { algorithm: SCRYPT, base64_signer_key: ..., rounds: 8, ... }`)
// and JSON, either bare or under a `hash_config` key, in snake_case or camelCase.
export function parseHashConfig(text: string): HashConfig {
  const fields = text.trimStart().startsWith('{') ? jsonFields(text) : blockFields(text);
  const pick = (...names: string[]) => names.map((name) => fields.get(normaliseName(name))).find((v) => v !== undefined);

  const algorithm = pick('algorithm');
  if (algorithm !== undefined && algorithm.toUpperCase() !== 'SCRYPT') {
    throw new HashConfigError(`hash config algorithm is ${algorithm}; only the platform's SCRYPT is supported`);
  }
  const signerText = required(pick('base64_signer_key', 'signer_key', 'signerKey'), 'base64_signer_key');
  const signerKey = decodeEitherBase64(signerText);
  if (!signerKey || signerKey.length === 0) throw new HashConfigError('base64_signer_key is not valid Base64');
  const separatorText = pick('base64_salt_separator', 'salt_separator', 'saltSeparator') ?? '';
  const separator = decodeEitherBase64(separatorText);
  if (!separator) throw new HashConfigError('base64_salt_separator is not valid Base64');
  const rounds = integer(required(pick('rounds'), 'rounds'), 'rounds', IDP_SCRYPT_LIMITS.minRounds, IDP_SCRYPT_LIMITS.maxRounds);
  const memCost = integer(
    required(pick('mem_cost', 'memCost', 'memory_cost'), 'mem_cost'),
    'mem_cost',
    IDP_SCRYPT_LIMITS.minMemCost,
    IDP_SCRYPT_LIMITS.maxMemCost,
  );
  return { signerKey, saltSeparator: separator.toString('base64'), rounds, memCost };
}

function normaliseName(name: string): string {
  return name.replace(/_/g, '').toLowerCase();
}

function jsonFields(text: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HashConfigError('hash config looks like JSON but does not parse');
  }
  const object = asObject(parsed);
  const wrapped = object.hash_config ?? object.hashConfig;
  const inner = wrapped === undefined ? object : asObject(wrapped);
  const fields = new Map<string, string>();
  for (const [name, value] of Object.entries(inner)) {
    if (typeof value === 'string' || typeof value === 'number') fields.set(normaliseName(name), String(value).trim());
  }
  return fields;
}

function blockFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const match of text.matchAll(/([A-Za-z0-9_]+)\s*:\s*("([^"]*)"|[^,\s}]+)/g)) {
    fields.set(normaliseName(match[1]), (match[3] ?? match[2]).trim());
  }
  if (fields.size === 0) throw new HashConfigError('hash config has no "name: value" pairs');
  return fields;
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function required(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new HashConfigError(`hash config is missing ${name}`);
  return value;
}

function integer(text: string, name: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new HashConfigError(`hash config ${name} must be an integer from ${min} to ${max}, got ${text}`);
  }
  return value;
}
