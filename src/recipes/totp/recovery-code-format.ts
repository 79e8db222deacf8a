import crypto from 'node:crypto';
import type { ErrorCode } from '../../errors.js';

// Contract M-7 [PROPOSAL]: recovery codes are kept only as digests. A code given in clear is canonicalised
// (whitespace and '-' dropped, lower case) and stored as SHA-256(16-byte salt ‖ code); a digest another system made
// (bcrypt, or unsalted SHA-256/512 in hex or base64) is kept as given and tried with the code as typed.
export const MAX_RECOVERY_CODES = 32;
// A wrong guess is tried against every unspent code of the user, each bcrypt digest with up to two spellings of the
// input: 12 digests (the most a common export carries: Keycloak and Kratos make 12, Clerk and FusionAuth 10) bound
// one guess to 24 scheduled verifications of one account, run one at a time (docs/hostile-conditions.md).
export const MAX_BCRYPT_DIGESTS = 12;
export const importedAlgorithms = ['bcrypt', 'sha256', 'sha512'] as const;
export type ImportedAlgorithm = (typeof importedAlgorithms)[number];
export type StoredAlgorithm = 'salted-sha256' | ImportedAlgorithm;

export interface StoredRecoveryCode {
  hashingAlgorithm: StoredAlgorithm;
  hash: string;
  salt?: string;
  usedAt?: number;
}

export function canonicalRecoveryCode(code: string): string {
  return code.replace(/[\s-]+/g, '').toLowerCase();
}

export function saltedDigest(canonicalCode: string, salt: Buffer): string {
  return crypto.createHash('sha256').update(salt).update(canonicalCode, 'utf8').digest('hex');
}

export function hashRecoveryCode(code: string): StoredRecoveryCode {
  const salt = crypto.randomBytes(16);
  return { hashingAlgorithm: 'salted-sha256', hash: saltedDigest(canonicalRecoveryCode(code), salt), salt: salt.toString('hex') };
}

/** The digest bytes of an imported sha256/sha512 hash in hex or base64, undefined when it is neither. */
export function digestBytes(hash: string, algorithm: 'sha256' | 'sha512'): Buffer | undefined {
  const length = algorithm === 'sha256' ? 32 : 64;
  if (/^[0-9a-fA-F]+$/.test(hash) && hash.length === length * 2) return Buffer.from(hash, 'hex');
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(hash) ? Buffer.from(hash, 'base64') : undefined;
  return bytes?.length === length ? bytes : undefined;
}

/** New codes: 10 lower-case base32 characters (50 bits), shown as two groups of five. */
export function generateRecoveryCode(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = crypto.randomBytes(10);
  const characters = [...bytes].map((byte) => alphabet[byte & 31]).join('');
  return `${characters.slice(0, 5)}-${characters.slice(5)}`;
}

/** Where a refusal goes: a bulk-import user's `errors`, or a route's 400. */
export type Report = (code: ErrorCode, ...args: unknown[]) => void;

/** Why an imported bcrypt digest is refused (the password-hash import bounds), undefined when it is accepted. */
export type DigestCheck = (hash: string) => string | undefined;

export const countBcryptDigests = (codes: readonly { hashingAlgorithm: StoredAlgorithm }[]) =>
  codes.filter((code) => code.hashingAlgorithm === 'bcrypt').length;

type Item = Record<string, unknown>;
const isItem = (value: unknown): value is Item => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * M-7 items: a code (string or {code}), or a digest {hash, hashingAlgorithm}, each with an optional usedAt. Codes in
 * clear are hashed here. `acceptStored` also takes the core's own salted form (queued bulk-import rows).
 */
export function parseRecoveryCodes(
  items: unknown,
  options: { report: Report; suffix: string; acceptStored: boolean; checkDigest: DigestCheck },
): StoredRecoveryCode[] | undefined {
  const { report, suffix } = options;
  if (!Array.isArray(items) || !items.every((item) => typeof item === 'string' || isItem(item))) {
    report('RECOVERY_CODES_NOT_ARRAY');
    return undefined;
  }
  if (items.length > MAX_RECOVERY_CODES) {
    report('RECOVERY_CODES_TOO_MANY', MAX_RECOVERY_CODES);
    return undefined;
  }
  let failed = false;
  const seen = new Set<string>();
  const codes: StoredRecoveryCode[] = [];
  const refuse = (code: ErrorCode, ...args: unknown[]) => {
    failed = true;
    report(code, ...args);
  };
  for (const item of items as (string | Item)[]) {
    const stored = parseRecoveryCode(typeof item === 'string' ? { code: item } : item, refuse, suffix, options, seen);
    if (stored) codes.push(stored);
  }
  if (!failed && countBcryptDigests(codes) > MAX_BCRYPT_DIGESTS) refuse('RECOVERY_CODES_TOO_MANY_DIGESTS', MAX_BCRYPT_DIGESTS);
  return failed ? undefined : codes;
}

function parseRecoveryCode(
  object: Item,
  refuse: Report,
  suffix: string,
  { acceptStored, checkDigest }: { acceptStored: boolean; checkDigest: DigestCheck },
  seen: Set<string>,
): StoredRecoveryCode | undefined {
  const usedAt = typeof object.usedAt === 'number' && Number.isSafeInteger(object.usedAt) ? object.usedAt : undefined;
  if (Object.hasOwn(object, 'usedAt') && usedAt === undefined) return void refuse('BULK_FIELD_TYPE', 'usedAt', 'integer', suffix);
  const withUse = (code: StoredRecoveryCode): StoredRecoveryCode => (usedAt === undefined ? code : { ...code, usedAt });
  if (typeof object.code === 'string') {
    const canonical = canonicalRecoveryCode(object.code);
    if (canonical.length < 6 || canonical.length > 64) return void refuse('RECOVERY_CODE_LENGTH', suffix);
    if (seen.has(canonical)) return void refuse('RECOVERY_CODES_DUPLICATE');
    seen.add(canonical);
    return withUse(hashRecoveryCode(object.code));
  }
  const { hash, hashingAlgorithm, salt } = object;
  if (typeof hash !== 'string' || typeof hashingAlgorithm !== 'string') return void refuse('RECOVERY_CODE_FORM', suffix);
  if (hashingAlgorithm === 'salted-sha256' && acceptStored && typeof salt === 'string') return withUse({ hashingAlgorithm, hash, salt });
  if (!(importedAlgorithms as readonly string[]).includes(hashingAlgorithm)) return void refuse('RECOVERY_CODE_ALGORITHM', suffix);
  const valid =
    hashingAlgorithm === 'bcrypt'
      ? /^\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}$/.test(hash)
      : digestBytes(hash, hashingAlgorithm as 'sha256' | 'sha512') !== undefined;
  if (!valid) return void refuse('RECOVERY_CODE_FORM', suffix);
  // The bounds and cost classes of imported password hashes hold for these digests too: a cost-31 digest would take
  // days to check once.
  const refusal = hashingAlgorithm === 'bcrypt' ? checkDigest(hash) : undefined;
  if (refusal !== undefined) return void refuse('RECOVERY_CODE_DIGEST_REFUSED', refusal, suffix);
  return withUse({ hashingAlgorithm: hashingAlgorithm as ImportedAlgorithm, hash });
}
