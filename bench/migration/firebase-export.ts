import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { FirebaseScrypt as FirebaseScryptType } from 'firebase-scrypt';

// A Firebase auth:export of N users in the mix of a typical consumer project: 90 % email + password ($f_scrypt$),
// 5 % Google, 3 % phone, 2 % email link (email only). The password hashes come from an independent implementation
// of the platform's scrypt variant at the platform's default cost (rounds 8, mem_cost 14); a few hundred distinct
// ones are made and reused, because making a million would take hours and verifying is not what is measured.
const { FirebaseScrypt } = createRequire(import.meta.url)('firebase-scrypt') as { FirebaseScrypt: typeof FirebaseScryptType };

export interface ExportedPassword {
  passwordHash: string;
  salt: string;
}

export interface HashParameters {
  signerKey: string;
  saltSeparator: string;
  rounds: number;
  memCost: number;
}

export function newHashParameters(): HashParameters {
  return { signerKey: crypto.randomBytes(64).toString('base64'), saltSeparator: 'Bw==', rounds: 8, memCost: 14 };
}

export function hashConfigBlock(params: HashParameters): string {
  return `hash_config {
  algorithm: SCRYPT,
  base64_signer_key: ${params.signerKey},
  base64_salt_separator: ${params.saltSeparator},
  rounds: ${params.rounds},
  mem_cost: ${params.memCost},
}
`;
}

export async function distinctPasswords(params: HashParameters, count: number): Promise<ExportedPassword[]> {
  const scrypt = new FirebaseScrypt(params);
  const passwords: ExportedPassword[] = [];
  // Two at a time: each takes 16 MB and a core's worth of CPU for tens of milliseconds.
  for (let start = 0; start < count; start += 2) {
    const pair = await Promise.all(
      [start, start + 1]
        .filter((i) => i < count)
        .map(async (i) => {
          const salt = crypto.randomBytes(12).toString('base64');
          return { passwordHash: await scrypt.hash(`password-${i}`, salt), salt };
        }),
    );
    passwords.push(...pair);
  }
  return passwords;
}

export type UserKind = 'password' | 'google' | 'phone' | 'email-link';

export function kindOf(index: number): UserKind {
  const slot = index % 100;
  return slot < 90 ? 'password' : slot < 95 ? 'google' : slot < 98 ? 'phone' : 'email-link';
}

function exportedUser(index: number, passwords: ExportedPassword[], baseTime: number): Record<string, unknown> {
  const localId = `fb${index.toString(36).padStart(8, '0')}${crypto.createHash('sha1').update(String(index)).digest('hex').slice(0, 12)}`;
  const common = { localId, createdAt: String(baseTime + index * 1000), lastSignedInAt: String(baseTime + index * 1000 + 5000) };
  switch (kindOf(index)) {
    case 'password': {
      const { passwordHash, salt } = passwords[index % passwords.length];
      return {
        ...common,
        email: `user${index}@example.com`,
        emailVerified: index % 3 !== 0,
        passwordHash,
        salt,
        displayName: `User ${index}`,
        providerUserInfo: [{ providerId: 'password', rawId: `user${index}@example.com`, email: `user${index}@example.com` }],
      };
    }
    case 'google':
      return {
        ...common,
        email: `g${index}@gmail.example`,
        emailVerified: true,
        displayName: `Google ${index}`,
        providerUserInfo: [{ providerId: 'google.com', rawId: `1${String(index).padStart(20, '0')}`, email: `g${index}@gmail.example` }],
      };
    case 'phone':
      return {
        ...common,
        phoneNumber: `+1415${String(2000000 + index)
          .padStart(7, '0')
          .slice(-7)}`,
        providerUserInfo: [
          {
            providerId: 'phone',
            rawId: `+1415${String(2000000 + index)
              .padStart(7, '0')
              .slice(-7)}`,
          },
        ],
      };
    default:
      return { ...common, email: `link${index}@example.com`, emailVerified: true, providerUserInfo: [] };
  }
}

// Streams the export to `file` in the layout auth:export writes: {"users": [, then each user as
// JSON.stringify(user, null, 2), separated by a comma and a line feed, then ]}. Returns its size in bytes.
export async function writeFirebaseExport(file: string, total: number, passwords: ExportedPassword[]): Promise<number> {
  const out = fs.createWriteStream(file);
  const baseTime = Date.parse('2019-01-01T00:00:00Z');
  const write = (text: string) =>
    out.write(text) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => resolve()));
  await write('{"users": [\n');
  let chunk: string[] = [];
  for (let i = 0; i < total; i++) {
    chunk.push(JSON.stringify(exportedUser(i, passwords, baseTime), null, 2));
    if (chunk.length === 1000 || i === total - 1) {
      await write(`${chunk.join(',\n')}${i === total - 1 ? '' : ',\n'}`);
      chunk = [];
    }
  }
  await write(']}');
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  // On disk before any clock starts: its write-back would otherwise compete with the first measured import's.
  const written = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(written);
  } finally {
    fs.closeSync(written);
  }
  return fs.statSync(file).size;
}
