import { describe, expect, it } from 'vitest';
import { argon2Format, hashArgon2, hasArgon2Params, parseArgon2 } from '../../src/hashing/argon2.js';
import { ARGON2_VECTORS, flipDigestCharacter } from './vectors.js';

const SALT = 'c29tZXNhbHRzb21lc2FsdA'; // 16 bytes
const DIGEST = 'ZGlnZXN0ZGlnZXN0ZGlnZXN0ZGlnZXN0'; // 24 bytes
const NOT_CANONICAL = 'hash is not canonical unpadded base64 (characters missing or changed?)';
const digestBytes = (bytes: number) => `hash decodes to ${bytes} bytes; expected a multiple of 4 from 16 to 128 (truncated?)`;

async function verify(password: string, hash: string): Promise<boolean | string> {
  const parsed = argon2Format.parse(hash);
  return parsed.ok ? argon2Format.verify(password, parsed.value, {}) : parsed.reason;
}

describe('argon2 verifier with @node-rs/argon2 vectors', () => {
  it('the vectors have the types and versions their descriptions claim', () => {
    expect(ARGON2_VECTORS.map(({ hash }) => hash.split('$').slice(1, 3).join('$'))).toEqual([
      'argon2id$v=19',
      'argon2i$v=16',
      'argon2d$v=19',
      'argon2id$m=64,t=1,p=1',
      'argon2id$v=19',
    ]);
  });

  it.each(ARGON2_VECTORS)('$description: right password matches', async ({ password, hash }) => {
    expect(await verify(password, hash)).toBe(true);
  });

  it.each(ARGON2_VECTORS)('$description: wrong password does not match', async ({ password, hash }) => {
    expect(await verify(password.slice(1), hash)).toBe(false);
  });

  it.each(ARGON2_VECTORS)('$description: one digest character flipped does not match', async ({ password, hash }) => {
    expect(await verify(password, flipDigestCharacter(hash, hash.lastIndexOf('$') + 1))).toBe(false);
  });

  it.each(ARGON2_VECTORS)('$description: parameters in m,p,t order still match', async ({ password, hash }) => {
    const reordered = hash.replace(/m=(\d+),t=(\d+),p=(\d+)/, 'm=$1,p=$3,t=$2');
    expect(reordered).not.toBe(hash);
    expect(await verify(password, reordered)).toBe(true);
  });
});

describe('argon2 parse', () => {
  it.each([
    { description: 'v19', hash: `$argon2id$v=19$m=65536,t=3,p=4$${SALT}$${DIGEST}`, version: 19, m: 65536 },
    { description: 'no v= means 16', hash: `$argon2i$m=64,t=3,p=4$${SALT}$${DIGEST}`, version: 16, m: 64 },
    { description: 'maximum bounds', hash: `$argon2d$v=16$m=4194304,t=3,p=4$${SALT}$${DIGEST}`, version: 16, m: 4194304 },
  ])('accepts $description', ({ hash, version, m }) => {
    const parsed = parseArgon2(hash);
    expect(parsed.ok && { version: parsed.value.version, m: parsed.value.memoryKb }).toEqual({ version, m });
  });

  const params = (text: string) => `$argon2id$v=19$${text}$${SALT}$${DIGEST}`;
  it.each([
    {
      description: 'unknown type',
      hash: `$argon2x$v=19$m=64,t=1,p=1$${SALT}$${DIGEST}`,
      reason: 'type must be argon2i, argon2d or argon2id',
    },
    {
      description: 'missing hash',
      hash: `$argon2id$v=19$m=64,t=1,p=1$${SALT}`,
      reason: 'expected $<type>$v=<version>$m=<memory>,t=<iterations>,p=<parallelism>$<salt>$<hash>',
    },
    {
      description: 'trailing $',
      hash: `${params('m=64,t=1,p=1')}$`,
      reason: 'expected $<type>$v=<version>$m=<memory>,t=<iterations>,p=<parallelism>$<salt>$<hash>',
    },
    { description: 'version 20', hash: `$argon2id$v=20$m=64,t=1,p=1$${SALT}$${DIGEST}`, reason: 'version must be 16 or 19' },
    {
      description: 'missing p',
      hash: params('m=64,t=1'),
      reason: 'parameters must be m=<memory>,t=<iterations>,p=<parallelism> as positive integers',
    },
    {
      description: 'duplicate m',
      hash: params('m=64,m=64,t=1'),
      reason: 'parameters must be m=<memory>,t=<iterations>,p=<parallelism> as positive integers',
    },
    {
      description: 'extra data=',
      hash: params('m=64,t=1,p=1,data=AAAA'),
      reason: 'parameters must be m=<memory>,t=<iterations>,p=<parallelism> as positive integers',
    },
    {
      description: 't=0',
      hash: params('m=64,t=0,p=1'),
      reason: 'parameters must be m=<memory>,t=<iterations>,p=<parallelism> as positive integers',
    },
    {
      description: 'leading zero',
      hash: params('m=064,t=1,p=1'),
      reason: 'parameters must be m=<memory>,t=<iterations>,p=<parallelism> as positive integers',
    },
    { description: 'm=4194305', hash: params('m=4194305,t=1,p=1'), reason: 'memory must be at most 4194304 KiB' },
    { description: 't=1025', hash: params('m=64,t=1025,p=1'), reason: 'iterations must be at most 1024' },
    { description: 'p=256', hash: params('m=4096,t=1,p=256'), reason: 'parallelism must be at most 255' },
    { description: 'm < 8p', hash: params('m=31,t=1,p=4'), reason: 'memory must be at least 8 KiB per lane' },
    { description: 'padded salt', hash: `$argon2id$v=19$m=64,t=1,p=1$${SALT}==$${DIGEST}`, reason: 'salt is not valid unpadded base64' },
    {
      description: 'URL-safe salt',
      hash: `$argon2id$v=19$m=64,t=1,p=1$${SALT.slice(1)}_$${DIGEST}`,
      reason: 'salt is not valid unpadded base64',
    },
    { description: '7-byte salt', hash: `$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbA$${DIGEST}`, reason: 'salt must be at least 8 bytes' },
    { description: 'impossible digest length', hash: `$argon2id$v=19$m=64,t=1,p=1$${SALT}$${DIGEST}A`, reason: NOT_CANONICAL },
    { description: '3-byte digest', hash: `$argon2id$v=19$m=64,t=1,p=1$${SALT}$YWJj`, reason: digestBytes(3) },
    {
      description: 'digest one character short',
      hash: `$argon2id$v=19$m=64,t=1,p=1$${SALT}$${DIGEST.slice(0, -1)}`,
      reason: NOT_CANONICAL,
    },
    {
      description: 'digest eight characters short',
      hash: `$argon2id$v=19$m=64,t=1,p=1$${SALT}$${DIGEST.slice(0, -8)}`,
      reason: digestBytes(18),
    },
    { description: '17-byte digest', hash: `$argon2id$v=19$m=64,t=1,p=1$${SALT}$ZGlnZXN0ZGlnZXN0ZGlnZXM`, reason: digestBytes(17) },
    {
      description: 'unused low bits set in the digest',
      hash: `$argon2id$v=19$m=64,t=1,p=1$${SALT}$${SALT.slice(0, -1)}B`,
      reason: NOT_CANONICAL,
    },
    {
      description: 'unused low bits set in the salt',
      hash: `$argon2id$v=19$m=64,t=1,p=1$${SALT.slice(0, -1)}B$${DIGEST}`,
      reason: 'salt is not valid unpadded base64',
    },
  ])('rejects $description', ({ hash, reason }) => {
    expect(parseArgon2(hash)).toEqual({ ok: false, reason, recognised: false });
  });
});

describe('argon2 hash', () => {
  const params = { memoryKb: 128, iterations: 2, parallelism: 2 };
  it.each([
    { description: 'ASCII', password: 'new password' },
    { description: 'non-ASCII', password: 'ñew pässwörd ✓' },
  ])('round-trips a $description password as canonical argon2id', async ({ password }) => {
    const hash = await hashArgon2(password, params);
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=128,t=2,p=2\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    const parsed = parseArgon2(hash);
    expect(parsed.ok && hasArgon2Params(parsed.value, params)).toBe(true);
    expect(parsed.ok && hasArgon2Params(parsed.value, { ...params, iterations: 3 })).toBe(false);
    expect(await verify(password, hash)).toBe(true);
    expect(await verify('other', hash)).toBe(false);
  });
});
