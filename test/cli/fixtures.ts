import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import bcrypt from 'bcryptjs';
import type { FirebaseScrypt as FirebaseScryptType } from 'firebase-scrypt';

// An independent implementation of the platform's scrypt variant makes the fixture hashes.
const { FirebaseScrypt } = createRequire(import.meta.url)('firebase-scrypt') as { FirebaseScrypt: typeof FirebaseScryptType };

/** A project's hash parameters, as its console would show them (cheap mem_cost to keep tests fast). */
export const hashParams = {
  signerKey: crypto.randomBytes(64).toString('base64'),
  saltSeparator: 'Bw==',
  rounds: 8,
  memCost: 12,
};

export const hashConfigBlock = `hash_config {
  algorithm: SCRYPT,
  base64_signer_key: ${hashParams.signerKey},
  base64_salt_separator: ${hashParams.saltSeparator},
  rounds: ${hashParams.rounds},
  mem_cost: ${hashParams.memCost},
}
`;

const scrypt = new FirebaseScrypt(hashParams);

export interface ExportedPassword {
  passwordHash: string;
  salt: string;
}

/** passwordHash and salt as the platform exports them, in the standard Base64 alphabet. */
export async function firebasePassword(password: string): Promise<ExportedPassword> {
  const salt = crypto.randomBytes(12).toString('base64');
  return { passwordHash: await scrypt.hash(password, salt), salt };
}

export function urlSafe(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function bcryptHash(password: string): string {
  return bcrypt.hashSync(password, 4);
}

export function makeTempDir(): { dir: string; file(name: string, content: string): string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-cli-'));
  return {
    dir,
    file(name, content) {
      const target = path.join(dir, name);
      fs.writeFileSync(target, content);
      return target;
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The layout `auth:export` writes: pretty-printed users separated by ",\n" inside {"users": [...]}. */
export function firebaseJsonExport(users: object[]): string {
  return `{"users": [\n${users.map((user) => JSON.stringify(user, null, 2)).join(',\n')}]\n}`;
}

export interface CsvAccount {
  localId: string;
  email?: string;
  emailVerified?: boolean;
  passwordHash?: string;
  salt?: string;
  displayName?: string;
  google?: { rawId: string; email?: string };
  github?: { rawId: string; email?: string };
  createdAt?: number;
  phoneNumber?: string;
  disabled?: boolean;
  customAttributes?: string;
}

/** One line of the platform's CSV export: 28 columns and a trailing comma, no header. */
export function firebaseCsvLine(account: CsvAccount): string {
  const cells: string[] = Array(28).fill('');
  cells[0] = account.localId;
  cells[1] = account.email ?? '';
  cells[2] = String(account.emailVerified ?? false);
  cells[3] = account.passwordHash ?? '';
  cells[4] = account.salt ?? '';
  cells[5] = account.displayName?.includes(',') ? `"${account.displayName}"` : account.displayName ?? '';
  if (account.google) [cells[7], cells[8]] = [account.google.rawId, account.google.email ?? ''];
  if (account.github) [cells[19], cells[20]] = [account.github.rawId, account.github.email ?? ''];
  cells[23] = account.createdAt === undefined ? '' : String(account.createdAt);
  cells[25] = account.phoneNumber ?? '';
  cells[26] = String(account.disabled ?? false);
  cells[27] = account.customAttributes === undefined ? '' : `"${account.customAttributes.replace(/"/g, '""')}"`;
  return `${cells.join(',')},`;
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

export async function* chunksOf(text: string, ...cuts: number[]): AsyncGenerator<string> {
  let start = 0;
  for (const cut of [...cuts, text.length]) {
    yield text.slice(start, cut);
    start = cut;
  }
}
