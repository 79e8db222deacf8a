import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import bcrypt from 'bcrypt';
import { hashArgon2 } from '../../src/hashing/argon2.js';
import { computeIdpScrypt } from '../../src/hashing/idp-scrypt.js';
import { loadConfig } from '../../src/config/load.js';
import { benchSignerKey } from './servers.js';

export type Algorithm = 'bcrypt' | 'argon2' | 'scrypt';
export const algorithms: Algorithm[] = ['bcrypt', 'argon2', 'scrypt'];

export interface Credential {
  email: string;
  password: string;
  hash: string;
}

/** What the contract names as realistic for each: bcrypt cost 10, argon2id at the config defaults, scrypt m=14 r=8. */
export const hashParameters = { bcryptCost: 10, scryptMemCost: 14, scryptRounds: 8 } as const;

export function argon2Defaults(): { memoryKb: number; iterations: number; parallelism: number } {
  const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-bench-config-'));
  const emptyFile = path.join(emptyDir, 'empty.yaml');
  fs.writeFileSync(emptyFile, '');
  const config = loadConfig({ argv: [`--config=${emptyFile}`] });
  fs.rmSync(emptyDir, { recursive: true, force: true });
  return { memoryKb: config.argon2_memory_kb, iterations: config.argon2_iterations, parallelism: config.argon2_parallelism };
}

export async function hashPassword(algorithm: Algorithm, password: string): Promise<string> {
  switch (algorithm) {
    case 'bcrypt':
      return bcrypt.hash(password, hashParameters.bcryptCost);
    case 'argon2':
      return hashArgon2(password, argon2Defaults());
    case 'scrypt': {
      const salt = crypto.randomBytes(16);
      const separator = Buffer.from('Bw==', 'base64');
      const parsed = { hash: Buffer.alloc(0), salt, separator, memCost: hashParameters.scryptMemCost, rounds: hashParameters.scryptRounds };
      const digest = await computeIdpScrypt(password, parsed, Buffer.from(benchSignerKey, 'base64'));
      const { scryptMemCost: m, scryptRounds: r } = hashParameters;
      return `$f_scrypt$${digest.toString('base64')}$${salt.toString('base64')}$m=${m}$r=${r}$s=Bw==`;
    }
  }
}

/**
 * `users` accounts sharing `distinct` different password/hash pairs: every hash has its own salt and password,
 * and hashing thousands of realistic hashes would take longer than the benchmark.
 */
export async function makeCredentials(algorithm: Algorithm, users: number, distinct: number, prefix: string): Promise<Credential[]> {
  const pairs: Array<{ password: string; hash: string }> = [];
  for (let index = 0; index < distinct; index++) {
    const password = `pw-${algorithm}-${index}-${crypto.randomBytes(6).toString('hex')}`;
    pairs.push({ password, hash: await hashPassword(algorithm, password) });
  }
  return Array.from({ length: users }, (_, index) => ({
    email: `${prefix}-${algorithm}-${index}@bench.example`,
    ...pairs[index % distinct],
  }));
}
