import { describe, expect, it } from 'vitest';
import { DEFAULT_COST_LIMITS } from '../../src/hashing/cost-limits.js';
import { PasswordHasher, type HashingOptions } from '../../src/hashing/registry.js';
import { CRYPT_VECTORS, SHA512_CRYPT_656000 } from './legacy-vectors.js';
import { ARGON2_VECTORS, BCRYPT_VECTORS, PUBLISHED_SCRYPT_HASH, SIGNER_KEY } from './vectors.js';

const OPTIONS: HashingOptions = {
  signerKey: SIGNER_KEY,
  newHashAlgorithm: 'BCRYPT',
  bcryptLogRounds: 4,
  argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
  argon2PoolSize: 1,
  scryptPoolSize: 1,
  bcryptPoolSize: 1,
};
const SCRYPT_PARAMS = PUBLISHED_SCRYPT_HASH.slice(0, PUBLISHED_SCRYPT_HASH.indexOf('$m='));
const argon2With = (params: string) => ARGON2_VECTORS[0].hash.replace(/m=\d+,t=\d+,p=\d+/, params);
const bcryptWithCost = (cost: string) => `$2b$${cost}${BCRYPT_VECTORS[0].hash.slice(6)}`;
const raise = (key: string) => `(raise ${key} to accept it)`;

/** An ASP.NET Core Identity v3 blob: format marker, PRF, iterations, salt length, salt, subkey. */
function aspnetIdentityV3(prf: number, iterations: number): string {
  const header = Buffer.alloc(13);
  header.writeUInt8(1, 0);
  header.writeUInt32BE(prf, 1);
  header.writeUInt32BE(iterations, 5);
  header.writeUInt32BE(16, 9);
  return `$aspnet-identity$${Buffer.concat([header, Buffer.alloc(16, 7), Buffer.alloc(32, 9)]).toString('base64')}`;
}

/** Each library's default parameters in a hash of the form it writes (docs/hash-formats.md lists them against the bounds). */
const LIBRARY_DEFAULTS = [
  { library: 'passlib sha256_crypt (535,000 rounds)', hash: CRYPT_VECTORS.find(({ hash }) => hash.includes('rounds=535000'))!.hash },
  { library: 'passlib sha512_crypt (656,000 rounds)', hash: SHA512_CRYPT_656000.hash },
  { library: 'passlib bcrypt (cost 12)', hash: bcryptWithCost('12') },
  {
    library: 'Django 6.0 PBKDF2 (1,200,000 iterations)',
    hash: 'pbkdf2_sha256$1200000$seasalt$8xBlGd3jVgvJ+92hWPxi5ww0uuAuAnKgC45eudxro7c=',
  },
  { library: 'Django bcrypt_sha256 (cost 12)', hash: `bcrypt_sha256$${bcryptWithCost('12')}` },
  { library: 'Django Argon2 (m=100 MiB, t=2, p=8)', hash: argon2With('m=102400,t=2,p=8') },
  {
    library: 'Django scrypt (N=2^14, r=8, p=1)',
    hash: 'scrypt$16384$seasalt$8$1$Qj3+9PPyRjSJIebHnG81TMjsqtaIGxNQG/aEB/NYafTJ7tibgfYz71m0ldQESkXFRkdVCBhhY8mx7rQwite/Pw==',
  },
  {
    library: 'Werkzeug 3.1 scrypt (N=2^15, r=8, p=1)',
    hash: `scrypt:32768:8:1$yvEVXgVQfLiMO5Ft$${'fd7571ea830ceaad17d20e23fbc3e618'.repeat(4)}`,
  },
  { library: 'Werkzeug 3.1 PBKDF2 (1,000,000 iterations)', hash: `pbkdf2:sha256:1000000$iuAaxWvA$${'2f3831dc844683f8'.repeat(4)}` },
  { library: 'Spring Security BCryptPasswordEncoder (strength 10)', hash: bcryptWithCost('10') },
  { library: 'Spring Security 5.8 Argon2PasswordEncoder (m=16 MiB, t=2, p=1)', hash: argon2With('m=16384,t=2,p=1') },
  { library: 'ASP.NET Core Identity v3 (.NET 7+: PBKDF2-HMAC-SHA512, 100,000)', hash: aspnetIdentityV3(2, 100_000) },
  { library: 'bcrypt cost 13', hash: bcryptWithCost('13') },
  { library: 'argon2-cffi, RFC 9106 second recommendation (m=64 MiB, t=3, p=4)', hash: argon2With('m=65536,t=3,p=4') },
];

const CASES = [
  {
    description: 'argon2 memory one KiB over 128 MiB',
    hash: argon2With('m=131073,t=1,p=1'),
    reason: `memory m = 131073 KiB is over the limit of 131072 KiB ${raise('imported_hash_max_memory_kib')}`,
    raised: { maxMemoryKib: 131073 },
  },
  {
    description: 'argon2 128 MiB with t=3',
    hash: argon2With('m=131072,t=3,p=1'),
    reason: `memory × iterations m × t = 393216 KiB is over the limit of 262144 KiB ${raise('imported_hash_max_argon2_work_kib')}`,
    raised: { maxArgon2WorkKib: 393216 },
  },
  {
    description: 'RFC 9106 first profile (2 GiB, t=1)',
    hash: argon2With('m=2097152,t=1,p=4'),
    reason: `memory m = 2097152 KiB is over the limit of 131072 KiB ${raise('imported_hash_max_memory_kib')}`,
    raised: { maxMemoryKib: 2097152, maxArgon2WorkKib: 2097152 },
  },
  {
    description: 'bcrypt cost 14',
    hash: bcryptWithCost('14'),
    reason: `cost = 14 is over the limit of 13 ${raise('imported_hash_max_bcrypt_cost')}`,
    raised: { maxBcryptCost: 14 },
  },
  {
    description: 'scrypt variant m=17, r=9 (128 MiB + 1 step)',
    hash: `${SCRYPT_PARAMS}$m=17$r=9$s=Bw==`,
    reason: `memory 128 * 2^mem_cost * rounds = 147456 KiB is over the limit of 131072 KiB ${raise('imported_hash_max_memory_kib')}`,
    raised: { maxMemoryKib: 147456 },
  },
  {
    description: 'sha512-crypt with 700,001 rounds',
    hash: `$6$rounds=700001$saltsalt$${'a'.repeat(85)}.`,
    reason: `rounds = 700001 is over the limit of 700000 ${raise('imported_hash_max_crypt_rounds')}`,
    raised: { maxCryptRounds: 700001 },
  },
];

describe('import cost bounds', () => {
  const hasher = new PasswordHasher(OPTIONS);

  it('default to the documented values', () => {
    expect(DEFAULT_COST_LIMITS).toEqual({
      maxMemoryKib: 131072,
      maxArgon2WorkKib: 262144,
      maxBcryptCost: 13,
      maxPbkdf2Iterations: 1500000,
      maxCryptRounds: 700000,
    });
  });

  it.each(CASES)('$description is refused naming the parameter, the limit and the key', ({ hash, reason }) => {
    expect(hasher.checkImport(hash)).toEqual({
      status: 'INVALID',
      stage: 'FORMAT',
      message: `Password hash is in invalid format: ${reason}`,
    });
  });

  it.each(CASES)('$description is accepted once the operator raises the bound', ({ hash, raised }) => {
    const raisedHasher = new PasswordHasher({ ...OPTIONS, importLimits: { ...DEFAULT_COST_LIMITS, ...raised } });
    expect(raisedHasher.checkImport(hash).status).toBe('OK');
  });

  it.each([
    { description: 'argon2 at the memory bound', hash: argon2With('m=131072,t=2,p=1') },
    { description: 'RFC 9106 second profile (64 MiB, t=3)', hash: argon2With('m=65536,t=3,p=4') },
    { description: 'Keycloak argon2 default', hash: argon2With('m=7168,t=5,p=1') },
    { description: 'bcrypt cost 13', hash: bcryptWithCost('13') },
    { description: 'scrypt variant at 128 MiB', hash: `${SCRYPT_PARAMS}$m=17$r=8$s=Bw==` },
    { description: 'sha512-crypt at the rounds bound', hash: `$6$rounds=700000$saltsalt$${'a'.repeat(85)}.` },
  ])('$description is accepted with the defaults', ({ hash }) => {
    expect(hasher.checkImport(hash).status).toBe('OK');
  });

  it.each(LIBRARY_DEFAULTS)("$library: a hash at the library's default cost imports with the default bounds", ({ hash }) => {
    expect(hasher.checkImport(hash)).toMatchObject({ status: 'OK' });
  });

  it('a stored hash over an import bound still verifies at sign-in, so lowering a bound locks nobody out', async () => {
    const strict = new PasswordHasher({ ...OPTIONS, importLimits: { ...DEFAULT_COST_LIMITS, maxBcryptCost: 4 } });
    const { password, hash } = BCRYPT_VECTORS[1];
    expect(strict.checkImport(hash).status).toBe('INVALID');
    expect(await strict.verify(password, hash)).toBe('MATCH');
  });
});

describe('cost classes', () => {
  const hasher = new PasswordHasher(OPTIONS);
  const b64 = (length: number) => Buffer.alloc(length, 7).toString('base64').replace(/=+$/, '');
  const crypt = (rounds: number) => `$6$rounds=${rounds}$saltsalt$${'a'.repeat(85)}.`;
  const pbkdf2 = (digest: string, iterations: number, bytes: number) =>
    `$pbkdf2-${digest}$i=${iterations},l=${bytes}$${b64(16)}$${b64(bytes)}`;
  const phpass = (countChar: string) => `$P$${countChar}saltsalt${'a'.repeat(21)}.`;

  it.each([
    { hash: bcryptWithCost('11'), expected: 'SCHEDULED', description: 'bcrypt 11 (this core writes it)' },
    { hash: bcryptWithCost('12'), expected: 'COSTLY', description: 'bcrypt 12' },
    { hash: argon2With('m=87795,t=1,p=2'), expected: 'SCHEDULED', description: 'argon2id 86 MiB t=1 (this core writes it)' },
    { hash: argon2With('m=65536,t=2,p=1'), expected: 'COSTLY', description: 'argon2id m × t = 128 MiB' },
    { hash: `$scrypt$ln=16,r=8,p=1$${b64(16)}$${b64(32)}`, expected: 'SCHEDULED', description: 'scrypt 64 MiB' },
    { hash: `$scrypt$ln=17,r=8,p=1$${b64(16)}$${b64(32)}`, expected: 'COSTLY', description: 'scrypt 128 MiB' },
    { hash: PUBLISHED_SCRYPT_HASH, expected: 'SCHEDULED', description: 'platform scrypt m=14 r=8' },
    { hash: pbkdf2('sha256', 299_999, 32), expected: 'SCHEDULED', description: 'PBKDF2-SHA256 299,999' },
    { hash: pbkdf2('sha256', 300_000, 32), expected: 'COSTLY', description: 'PBKDF2-SHA256 300,000' },
    { hash: pbkdf2('sha512', 150_000, 64), expected: 'COSTLY', description: 'PBKDF2-SHA512 150,000 (counted twice)' },
    { hash: crypt(349_999), expected: 'SCHEDULED', description: 'sha512-crypt 349,999 rounds' },
    { hash: crypt(350_000), expected: 'COSTLY', description: 'sha512-crypt 350,000 rounds' },
    { hash: phpass('D'), expected: 'SCHEDULED', description: 'phpass 2^15' },
    { hash: phpass('E'), expected: 'COSTLY', description: 'phpass 2^16' },
  ])('$description is $expected', ({ hash, expected }) => {
    expect(hasher.costClassOf(hash)).toBe(expected);
  });
});
