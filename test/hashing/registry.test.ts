import { describe, expect, it } from 'vitest';
import { HASHING_ALGORITHM_NAMES } from '../../src/hashing/formats.js';
import { javaTrim } from '../../src/normalise/java-trim.js';
import {
  parseHashingAlgorithm,
  PasswordHasher,
  type HashingOptions,
  type ImportCheck,
  type ImportFailureStage,
} from '../../src/hashing/registry.js';
import {
  ARGON2_VECTORS,
  BCRYPT_VECTORS,
  PUBLISHED_SCRYPT,
  PUBLISHED_SCRYPT_HASH,
  SCRYPT_VECTORS,
  SIGNER_KEY,
  flipDigestCharacter,
} from './vectors.js';

const OPTIONS: HashingOptions = {
  signerKey: SIGNER_KEY,
  newHashAlgorithm: 'BCRYPT',
  bcryptLogRounds: 4,
  argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
  argon2PoolSize: 2,
  scryptPoolSize: 2,
  bcryptPoolSize: 2,
};
const withKey = new PasswordHasher(OPTIONS);
const withoutKey = new PasswordHasher({ ...OPTIONS, signerKey: undefined });
const argon2Hasher = new PasswordHasher({ ...OPTIONS, newHashAlgorithm: 'ARGON2' });

const BCRYPT = BCRYPT_VECTORS[0].hash;
const ARGON2 = ARGON2_VECTORS[0].hash;
const SCRYPT_PARAMS = PUBLISHED_SCRYPT_HASH.slice(0, PUBLISHED_SCRYPT_HASH.indexOf('$m='));
const BCRYPT_MSG = 'Password hash is in invalid BCrypt format';
const ARGON2_MSG = 'Password hash is in invalid Argon2 format';
const SCRYPT_MSG = 'Password hash is in invalid Firebase SCrypt format';
const GENERIC_MSG = 'Password hash is in invalid format';
const SCRYPT_SHAPE = 'expected $f_scrypt$<hash>$<salt>$m=<mem_cost>$r=<rounds>$s=<separator>[$k=<key name>]';

const ok = (hash: string, algorithm: string): ImportCheck => ({ status: 'OK', hash, algorithm }) as ImportCheck;
const ACCEPTED = HASHING_ALGORITHM_NAMES.map((name) => name.toLowerCase()).join(', ');
const UNSUPPORTED_MSG = `Unsupported password hashing algorithm: use one of ${ACCEPTED} (any case)`;
const INPUT_STAGES: Record<string, ImportFailureStage> = {
  'Password hash cannot be an empty string': 'EMPTY_HASH',
  'Hashing Algorithm cannot be an empty string': 'EMPTY_ALGORITHM',
  [UNSUPPORTED_MSG]: 'UNSUPPORTED_ALGORITHM',
};
const invalid = (message: string): ImportCheck => ({ status: 'INVALID', stage: INPUT_STAGES[message] ?? 'FORMAT', message });
const PLAIN_REASON = 'this is not a hash format this core knows (a plain-text password, or a bare digest without its prefix?)';
const C_REASON = '$2c$ is not a bcrypt variant this core verifies (bcrypt writes $2a$, $2b$, $2x$ or $2y$)';
const KEY_MISSING: ImportCheck = { status: 'SIGNER_KEY_MISSING' };
const argon2With = (params: string) => ARGON2.replace(/m=\d+,t=\d+,p=\d+/, params);

describe('PasswordHasher.checkImport (§6.1 steps 4, 5 and 7)', () => {
  it.each([
    { description: 'empty hash', hash: '', algorithm: undefined, expected: invalid('Password hash cannot be an empty string') },
    {
      description: 'whitespace-only hash',
      hash: ' \t\r\n\u0000 ',
      algorithm: 'BCRYPT',
      expected: invalid('Password hash cannot be an empty string'),
    },
    {
      description: 'empty hash wins over a bad algorithm',
      hash: ' ',
      algorithm: 'md5',
      expected: invalid('Password hash cannot be an empty string'),
    },
    { description: 'empty algorithm', hash: BCRYPT, algorithm: '', expected: invalid('Hashing Algorithm cannot be an empty string') },
    { description: 'blank algorithm', hash: 'x', algorithm: '  \t', expected: invalid('Hashing Algorithm cannot be an empty string') },
    { description: 'unsupported algorithm', hash: BCRYPT, algorithm: 'md5', expected: invalid(UNSUPPORTED_MSG) },
    {
      description: 'dash instead of underscore',
      hash: PUBLISHED_SCRYPT_HASH,
      algorithm: 'firebase-scrypt',
      expected: invalid(UNSUPPORTED_MSG),
    },
    { description: 'non-breaking space is not trimmed', hash: BCRYPT, algorithm: '\u00a0BCRYPT', expected: invalid(UNSUPPORTED_MSG) },
    { description: 'BcRyPt', hash: BCRYPT, algorithm: 'BcRyPt', expected: ok(BCRYPT, 'BCRYPT') },
    { description: '" argon2 "', hash: ARGON2, algorithm: ' argon2 ', expected: ok(ARGON2, 'ARGON2') },
    {
      description: 'firebase_scrypt',
      hash: PUBLISHED_SCRYPT_HASH,
      algorithm: 'firebase_scrypt',
      expected: ok(PUBLISHED_SCRYPT_HASH, 'IDP_SCRYPT'),
    },
    { description: 'idp_scrypt', hash: PUBLISHED_SCRYPT_HASH, algorithm: 'idp_scrypt', expected: ok(PUBLISHED_SCRYPT_HASH, 'IDP_SCRYPT') },
    { description: 'hash is trimmed', hash: `\n ${BCRYPT}\t`, algorithm: undefined, expected: ok(BCRYPT, 'BCRYPT') },
    {
      description: 'BCRYPT given an argon2 hash',
      hash: ARGON2,
      algorithm: 'BCRYPT',
      expected: invalid(`${BCRYPT_MSG}: the hash is in the ARGON2 format; set hashingAlgorithm to argon2`),
    },
    {
      description: 'ARGON2 given a bcrypt hash',
      hash: BCRYPT,
      algorithm: 'ARGON2',
      expected: invalid(`${ARGON2_MSG}: the hash is in the BCRYPT format; set hashingAlgorithm to bcrypt`),
    },
    {
      description: 'IDP_SCRYPT given a bcrypt hash',
      hash: BCRYPT,
      algorithm: 'IDP_SCRYPT',
      expected: invalid(`${SCRYPT_MSG}: the hash is in the BCRYPT format; set hashingAlgorithm to bcrypt`),
    },
    {
      description: 'bcrypt cost 03',
      hash: `$2a$03${BCRYPT.slice(6)}`,
      algorithm: 'BCRYPT',
      expected: invalid(`${BCRYPT_MSG}: cost must be between 04 and 31`),
    },
    {
      description: 'truncated bcrypt',
      hash: BCRYPT.slice(0, 50),
      algorithm: 'bcrypt',
      expected: invalid(`${BCRYPT_MSG}: salt and hash must be exactly 53 characters, got 43`),
    },
    {
      description: 'argon2 m=4194305',
      hash: argon2With('m=4194305,t=1,p=1'),
      algorithm: 'ARGON2',
      expected: invalid(`${ARGON2_MSG}: memory must be at most 4194304 KiB`),
    },
    {
      description: 'argon2 t=1025',
      hash: argon2With('m=64,t=1025,p=1'),
      algorithm: 'ARGON2',
      expected: invalid(`${ARGON2_MSG}: iterations must be at most 1024`),
    },
    {
      description: 'argon2 p=256',
      hash: argon2With('m=4096,t=1,p=256'),
      algorithm: 'ARGON2',
      expected: invalid(`${ARGON2_MSG}: parallelism must be at most 255`),
    },
    {
      description: 'argon2 m < 8p',
      hash: argon2With('m=15,t=1,p=2'),
      algorithm: 'ARGON2',
      expected: invalid(`${ARGON2_MSG}: memory must be at least 8 KiB per lane`),
    },
    {
      description: 'scrypt m=21',
      hash: `${SCRYPT_PARAMS}$m=21$r=1$s=Bw==`,
      algorithm: 'IDP_SCRYPT',
      expected: invalid(`${SCRYPT_MSG}: mem_cost must be between 1 and 20`),
    },
    {
      description: 'scrypt r=33',
      hash: `${SCRYPT_PARAMS}$m=14$r=33$s=Bw==`,
      algorithm: 'IDP_SCRYPT',
      expected: invalid(`${SCRYPT_MSG}: rounds must be between 1 and 32`),
    },
    {
      description: 'scrypt over 1 GiB',
      hash: `${SCRYPT_PARAMS}$m=19$r=17$s=Bw==`,
      algorithm: 'IDP_SCRYPT',
      expected: invalid(`${SCRYPT_MSG}: 128 * 2^mem_cost * rounds must not exceed 1 GiB`),
    },
    {
      description: 'scrypt without s=',
      hash: `${SCRYPT_PARAMS}$m=14$r=8`,
      algorithm: 'IDP_SCRYPT',
      expected: invalid(`${SCRYPT_MSG}: ${SCRYPT_SHAPE}`),
    },
    {
      description: 'detected: unknown format',
      hash: 'plaintext',
      algorithm: undefined,
      expected: invalid(`${GENERIC_MSG}: ${PLAIN_REASON}`),
    },
    {
      description: 'detected: $2c$ is not a bcrypt prefix',
      hash: `$2c${BCRYPT.slice(3)}`,
      algorithm: undefined,
      expected: invalid(`${GENERIC_MSG}: ${C_REASON}`),
    },
    {
      description: 'detected: bcrypt cost 32',
      hash: `$2b$32${BCRYPT.slice(6)}`,
      algorithm: undefined,
      expected: invalid(`${GENERIC_MSG}: cost must be between 04 and 31`),
    },
    {
      description: 'detected: argon2 p=256',
      hash: argon2With('m=4096,t=1,p=256'),
      algorithm: undefined,
      expected: invalid(`${GENERIC_MSG}: parallelism must be at most 255`),
    },
    {
      description: 'detected: scrypt m=21',
      hash: `${SCRYPT_PARAMS}$m=21$r=1$s=Bw==`,
      algorithm: undefined,
      expected: invalid(`${GENERIC_MSG}: mem_cost must be between 1 and 20`),
    },
    {
      description: 'detected: malformed scrypt',
      hash: '$f_scrypt$garbage',
      algorithm: undefined,
      expected: invalid(`${GENERIC_MSG}: ${SCRYPT_SHAPE}`),
    },
    ...[...BCRYPT_VECTORS, ...ARGON2_VECTORS, ...SCRYPT_VECTORS].map(({ description, hash }) => ({
      description: `detected: ${description}`,
      hash,
      algorithm: undefined,
      expected: ok(hash, hash.startsWith('$2') ? 'BCRYPT' : hash.startsWith('$argon2') ? 'ARGON2' : 'IDP_SCRYPT'),
    })),
  ])('$description', ({ hash, algorithm, expected }) => {
    expect(withKey.checkImport(hash, algorithm)).toEqual(expected);
  });

  it.each([
    { description: 'IDP_SCRYPT with a valid hash', hash: PUBLISHED_SCRYPT_HASH, algorithm: 'IDP_SCRYPT', expected: KEY_MISSING },
    {
      description: 'FIREBASE_SCRYPT: the key is checked before the hash',
      hash: 'garbage',
      algorithm: 'FIREBASE_SCRYPT',
      expected: KEY_MISSING,
    },
    { description: 'detected scrypt hash', hash: PUBLISHED_SCRYPT_HASH, algorithm: undefined, expected: KEY_MISSING },
    {
      description: 'detected scrypt hash out of bounds',
      hash: `${SCRYPT_PARAMS}$m=21$r=1$s=Bw==`,
      algorithm: undefined,
      expected: KEY_MISSING,
    },
    {
      description: 'detected: not the scrypt shape, so no key needed',
      hash: '$f_scrypt$garbage',
      algorithm: undefined,
      expected: invalid(`${GENERIC_MSG}: ${SCRYPT_SHAPE}`),
    },
    { description: 'bcrypt needs no key', hash: BCRYPT, algorithm: undefined, expected: ok(BCRYPT, 'BCRYPT') },
    { description: 'unsupported algorithm wins', hash: PUBLISHED_SCRYPT_HASH, algorithm: 'md5', expected: invalid(UNSUPPORTED_MSG) },
    {
      description: 'standard SCRYPT named for a scrypt-variant hash needs no key',
      hash: PUBLISHED_SCRYPT_HASH,
      algorithm: 'scrypt',
      expected: invalid(
        'Password hash is in invalid SCrypt format: the hash is in the IDP_SCRYPT format; set hashingAlgorithm to idp_scrypt',
      ),
    },
  ])('without a signer key: $description', ({ hash, algorithm, expected }) => {
    expect(withoutKey.checkImport(hash, algorithm)).toEqual(expected);
  });
});

describe('PasswordHasher.verify (§6.6)', () => {
  const vectors = [
    ...BCRYPT_VECTORS.map((v) => ({ ...v, algorithm: 'bcrypt', digestStart: 29 })),
    ...ARGON2_VECTORS.map((v) => ({ ...v, algorithm: 'argon2', digestStart: v.hash.lastIndexOf('$') + 1 })),
    ...SCRYPT_VECTORS.map((v) => ({ ...v, algorithm: 'scrypt', digestStart: '$f_scrypt$'.length })),
  ];

  it.each(vectors)('$algorithm $description', async ({ password, hash, digestStart }) => {
    expect(await withKey.verify(password, hash)).toBe('MATCH');
    expect(await withKey.verify(`${password}x`, hash)).toBe('NO_MATCH');
    expect(await withKey.verify('', hash)).toBe('NO_MATCH');
    expect(await withKey.verify(password, flipDigestCharacter(hash, digestStart))).toBe('NO_MATCH');
  });

  it.each([
    { description: 'unknown format', hash: 'plaintext' },
    { description: 'empty', hash: '' },
    { description: 'bcrypt cost 03', hash: `$2a$03${BCRYPT.slice(6)}` },
    { description: 'argon2 over bounds', hash: argon2With('m=4194305,t=1,p=1') },
    { description: 'scrypt over bounds', hash: `${SCRYPT_PARAMS}$m=20$r=9$s=Bw==` },
    { description: 'surrounding whitespace (stored hashes are trimmed at import)', hash: ` ${BCRYPT}` },
  ])('$description is UNPARSABLE', async ({ hash }) => {
    expect(await withKey.verify('password', hash)).toBe('UNPARSABLE');
  });

  it.each([
    { hash: PUBLISHED_SCRYPT_HASH, expected: 'SIGNER_KEY_MISSING' },
    { hash: '$f_scrypt$garbage', expected: 'UNPARSABLE' },
    { hash: BCRYPT, expected: 'MATCH' },
  ])('without a signer key $hash gives $expected', async ({ hash, expected }) => {
    const password = hash === BCRYPT ? BCRYPT_VECTORS[0].password : PUBLISHED_SCRYPT.password;
    expect(await withoutKey.verify(password, hash)).toBe(expected);
  });
});

describe('PasswordHasher.hash, needsRehash and verifyDecoy', () => {
  it.each([
    { description: 'BCRYPT', hasher: withKey, format: /^\$2b\$04\$[./A-Za-z0-9]{53}$/ },
    { description: 'ARGON2', hasher: argon2Hasher, format: /^\$argon2id\$v=19\$m=64,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/ },
  ])('$description: hash round-trips, is current, and the decoy never matches', async ({ hasher, format }) => {
    const hash = await hasher.hash('ñew pässwörd');
    expect(hash).toMatch(format);
    expect(hasher.checkImport(hash).status).toBe('OK');
    expect(await hasher.verify('ñew pässwörd', hash)).toBe('MATCH');
    expect(await hasher.verify('new password', hash)).toBe('NO_MATCH');
    expect(hasher.needsRehash(hash)).toBe(false);
    await expect(hasher.verifyDecoy('ñew pässwörd')).resolves.toBeUndefined();
    await expect(hasher.verifyDecoy('')).resolves.toBeUndefined();
  });

  it.each([
    { description: 'bcrypt at the configured cost', hasher: withKey, hash: BCRYPT, expected: false },
    { description: 'bcrypt at another cost', hasher: withKey, hash: BCRYPT_VECTORS[1].hash, expected: true },
    { description: 'argon2 under BCRYPT', hasher: withKey, hash: ARGON2, expected: true },
    { description: 'scrypt variant', hasher: withKey, hash: PUBLISHED_SCRYPT_HASH, expected: true },
    { description: 'garbage', hasher: withKey, hash: 'plaintext', expected: true },
    { description: 'bcrypt under ARGON2', hasher: argon2Hasher, hash: BCRYPT, expected: true },
    { description: 'argon2id with other memory', hasher: argon2Hasher, hash: argon2With('m=128,t=1,p=1'), expected: true },
    { description: 'argon2i v16 vector', hasher: argon2Hasher, hash: ARGON2_VECTORS[1].hash, expected: true },
  ])('needsRehash: $description', ({ hasher, hash, expected }) => {
    expect(hasher.needsRehash(hash)).toBe(expected);
  });

  it('treats a configured cost below 4 as 4, which is what the binding writes', async () => {
    const hasher = new PasswordHasher({ ...OPTIONS, bcryptLogRounds: 1 });
    expect(hasher.needsRehash(await hasher.hash('pw'))).toBe(false);
  });
});

describe('configuration and helpers', () => {
  it('refuses a signer key that is not base64', () => {
    expect(() => new PasswordHasher({ ...OPTIONS, signerKey: 'not base64!' })).toThrow(
      "'idp_password_hashing_signer_key' is not valid base64",
    );
  });

  it('accepts a URL-safe unpadded signer key and treats an empty one as not configured', async () => {
    const urlSafe = SIGNER_KEY.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const hasher = new PasswordHasher({ ...OPTIONS, signerKey: urlSafe });
    expect(await hasher.verify(PUBLISHED_SCRYPT.password, PUBLISHED_SCRYPT_HASH)).toBe('MATCH');
    expect(new PasswordHasher({ ...OPTIONS, signerKey: '' }).checkImport(PUBLISHED_SCRYPT_HASH)).toEqual(KEY_MISSING);
  });

  it.each([
    { name: 'bcrypt', expected: 'BCRYPT' },
    { name: ' Argon2\n', expected: 'ARGON2' },
    { name: 'Firebase_Scrypt', expected: 'IDP_SCRYPT' },
    { name: 'idp_scrypt', expected: 'IDP_SCRYPT' },
    { name: 'scrypt', expected: 'SCRYPT' },
    { name: 'f_scrypt', expected: undefined },
    { name: '', expected: undefined },
  ])('parseHashingAlgorithm($name) is $expected', ({ name, expected }) => {
    expect(parseHashingAlgorithm(name)).toBe(expected);
  });

  it.each([
    { text: '\u0000\t x y \r\n\u0020', expected: 'x y' },
    { text: '\u00a0x\u2003', expected: '\u00a0x\u2003' },
    { text: '', expected: '' },
  ])('javaTrim(%j) only strips characters up to U+0020', ({ text, expected }) => {
    expect(javaTrim(text)).toBe(expected);
  });
});
