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

export interface ExportedProvider {
  providerId: string;
  rawId: string;
  email?: string;
  displayName?: string;
  photoUrl?: string;
}

export interface CsvAccount {
  localId: string;
  email?: string;
  emailVerified?: boolean;
  passwordHash?: string;
  salt?: string;
  displayName?: string;
  photoUrl?: string;
  google?: { rawId: string; email?: string };
  github?: { rawId: string; email?: string };
  providerUserInfo?: ExportedProvider[];
  createdAt?: number;
  lastSignedInAt?: number;
  phoneNumber?: string;
  disabled?: boolean;
  customAttributes?: string;
}

// Where auth:export --format=csv puts each provider's four columns (raw id, email, display name, photo URL).
const CSV_PROVIDER_START: Record<string, number> = {
  'google.com': 7,
  'facebook.com': 11,
  'twitter.com': 15,
  'github.com': 19,
  'apple.com': 28,
  'microsoft.com': 32,
  'gc.apple.com': 36,
  'playgames.google.com': 40,
  'linkedin.com': 44,
  'yahoo.com': 48,
};

/** A display name as the exporter writes it: wrapped in quotes when it holds a comma, inner quotes left alone. */
const exporterEscape = (value: string | undefined) => (value?.includes(',') ? `"${value}"` : (value ?? ''));

/**
 * The custom claims as firebase-tools writes them into its CSV (accountExporter.ts, read for this): every quote
 * doubled except one right after a backslash, so a JSON escape `\"` stays as it is, which strict CSV cannot read.
 */
function exporterClaims(json: string): string {
  let out = '';
  for (let i = 0; i < json.length; i++) out += json[i] === '"' && json[i - 1] !== '\\' ? '""' : json[i];
  return out;
}

/** One line of the platform's CSV export: 52 columns and a trailing comma, no header. */
export function firebaseCsvLine(account: CsvAccount): string {
  const cells: string[] = Array(52).fill('');
  cells[0] = account.localId;
  cells[1] = account.email ?? '';
  cells[2] = String(account.emailVerified ?? false);
  cells[3] = account.passwordHash ?? '';
  cells[4] = account.salt ?? '';
  cells[5] = exporterEscape(account.displayName);
  cells[6] = account.photoUrl ?? '';
  const providers = [
    ...(account.google ? [{ providerId: 'google.com', ...account.google }] : []),
    ...(account.github ? [{ providerId: 'github.com', ...account.github }] : []),
    ...(account.providerUserInfo ?? []),
  ];
  for (const provider of providers) {
    const start = CSV_PROVIDER_START[provider.providerId];
    cells[start] = provider.rawId;
    cells[start + 1] = provider.email ?? '';
    cells[start + 2] = exporterEscape(provider.displayName);
    cells[start + 3] = provider.photoUrl ?? '';
  }
  cells[23] = account.createdAt === undefined ? '' : String(account.createdAt);
  cells[24] = account.lastSignedInAt === undefined ? '' : String(account.lastSignedInAt);
  cells[25] = account.phoneNumber ?? '';
  cells[26] = String(account.disabled ?? false);
  cells[27] = account.customAttributes === undefined ? '' : `"${exporterClaims(account.customAttributes)}"`;
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
