import { describe, expect, it } from 'vitest';
import { computeIdpScrypt, idpScryptFormat, parseIdpScrypt } from '../../src/hashing/idp-scrypt.js';
import { NON_ASCII_PASSWORD, PUBLISHED_SCRYPT, PUBLISHED_SCRYPT_HASH, SCRYPT_VECTORS, SIGNER_KEY, flipDigestCharacter } from './vectors.js';

const signerKey = Buffer.from(SIGNER_KEY, 'base64');
const HASH = PUBLISHED_SCRYPT.hash;
const SALT = PUBLISHED_SCRYPT.salt;

async function verify(password: string, hash: string): Promise<boolean | string> {
  const parsed = idpScryptFormat.parse(hash);
  return parsed.ok ? idpScryptFormat.verify(password, parsed.value, { signerKey }) : parsed.reason;
}

describe('scrypt variant with the published vector and firebase-scrypt vectors', () => {
  it('reproduces the published hash bytes', async () => {
    const parsed = parseIdpScrypt(PUBLISHED_SCRYPT_HASH);
    if (!parsed.ok) throw new Error(parsed.reason);
    const computed = await computeIdpScrypt(PUBLISHED_SCRYPT.password, parsed.value, signerKey);
    expect(computed.toString('base64')).toBe(HASH);
  });

  it.each(SCRYPT_VECTORS)('$description: right password matches', async ({ password, hash }) => {
    expect(await verify(password, hash)).toBe(true);
  });

  it.each(SCRYPT_VECTORS)('$description: wrong password does not match', async ({ password, hash }) => {
    expect(await verify(password.toUpperCase() + 'x', hash)).toBe(false);
  });

  it.each(SCRYPT_VECTORS)('$description: one digest character flipped does not match', async ({ password, hash }) => {
    expect(await verify(password, flipDigestCharacter(hash, '$f_scrypt$'.length))).toBe(false);
  });

  it('hashes UTF-8 bytes: the ASCII-only reading of a non-ASCII password does not match', async () => {
    const vector = SCRYPT_VECTORS.find(({ password }) => password === NON_ASCII_PASSWORD);
    expect(await verify(NON_ASCII_PASSWORD.replace(/[^\x00-\x7f]/g, '?'), vector!.hash)).toBe(false);
  });

  it('a different signer key never matches', async () => {
    const parsed = parseIdpScrypt(PUBLISHED_SCRYPT_HASH);
    if (!parsed.ok) throw new Error(parsed.reason);
    const otherKey = Buffer.alloc(signerKey.length, 7);
    expect(await idpScryptFormat.verify(PUBLISHED_SCRYPT.password, parsed.value, { signerKey: otherKey })).toBe(false);
  });
});

describe('scrypt variant parse', () => {
  const stored = (params: string, hash = HASH, salt = SALT) => `$f_scrypt$${hash}$${salt}$${params}`;
  it.each([
    { description: 'the published form', hash: stored('m=14$r=8$s=Bw==') },
    { description: 'trailing $ pieces dropped', hash: stored('m=14$r=8$s=Bw==$$') },
    { description: 'empty separator', hash: stored('m=14$r=8$s=') },
    { description: 'largest allowed memory (m=20, r=8 is 1 GiB)', hash: stored('m=20$r=8$s=Bw==') },
    { description: 'largest rounds with small memory', hash: stored('m=10$r=32$s=Bw==') },
  ])('accepts $description', ({ hash }) => {
    expect(parseIdpScrypt(hash).ok).toBe(true);
  });

  const SHAPE = 'expected $f_scrypt$<hash>$<salt>$m=<mem_cost>$r=<rounds>$s=<separator>[$k=<key name>]';
  const PIECES = 'the last parts must be m=<mem_cost>, r=<rounds>, s=<separator> and optionally k=<key name>, once each';
  it.each([
    { description: 'missing s=', hash: stored('m=14$r=8'), reason: SHAPE, recognised: false },
    { description: 'extra piece', hash: stored('m=14$r=8$s=Bw==$x=1'), reason: PIECES, recognised: false },
    { description: 'two extra pieces', hash: stored('m=14$r=8$s=Bw==$k=a$x=1'), reason: SHAPE, recognised: false },
    { description: 'wrong name', hash: `$g_scrypt$${HASH}$${SALT}$m=14$r=8$s=Bw==`, reason: SHAPE, recognised: false },
    { description: 'duplicate m=', hash: stored('m=14$m=14$s=Bw=='), reason: PIECES, recognised: false },
    { description: 'unknown parameter', hash: stored('m=14$p=1$s=Bw=='), reason: PIECES, recognised: false },
    { description: 'non-decimal m', hash: stored('m=0x0e$r=8$s=Bw=='), reason: 'm and r must be decimal integers', recognised: false },
    { description: 'negative r', hash: stored('m=14$r=-8$s=Bw=='), reason: 'm and r must be decimal integers', recognised: false },
    {
      description: 'hash with a stray character',
      hash: stored('m=14$r=8$s=Bw==', `${HASH.slice(0, 10)}*${HASH.slice(11)}`),
      reason: 'password hash is not valid base64',
      recognised: true,
    },
    {
      description: 'hash mixing both alphabets',
      hash: stored('m=14$r=8$s=Bw==', `-${HASH.slice(1)}`),
      reason: 'password hash is not valid base64',
      recognised: true,
    },
    {
      description: 'hash with wrong padding',
      hash: stored('m=14$r=8$s=Bw==', `${HASH}=`),
      reason: 'password hash is not valid base64',
      recognised: true,
    },
    {
      description: '15-byte hash',
      hash: stored('m=14$r=8$s=Bw==', 'AAAAAAAAAAAAAAAAAAAA'),
      reason: 'password hash must decode to at least 16 bytes',
      recognised: true,
    },
    {
      description: 'salt of impossible length',
      hash: stored('m=14$r=8$s=Bw==', HASH, 'abcde'),
      reason: 'salt is not valid base64',
      recognised: true,
    },
    {
      description: 'separator with a space',
      hash: stored('m=14$r=8$s=B w=='),
      reason: 'salt separator is not valid base64',
      recognised: true,
    },
    { description: 'm=0', hash: stored('m=0$r=8$s=Bw=='), reason: 'mem_cost must be between 1 and 20', recognised: true },
    { description: 'm=21', hash: stored('m=21$r=1$s=Bw=='), reason: 'mem_cost must be between 1 and 20', recognised: true },
    { description: 'r=0', hash: stored('m=14$r=0$s=Bw=='), reason: 'rounds must be between 1 and 32', recognised: true },
    { description: 'r=33', hash: stored('m=4$r=33$s=Bw=='), reason: 'rounds must be between 1 and 32', recognised: true },
    {
      description: '2 GiB (m=20, r=16)',
      hash: stored('m=20$r=16$s=Bw=='),
      reason: '128 * 2^mem_cost * rounds must not exceed 1 GiB',
      recognised: true,
    },
    {
      description: '2 GiB (m=18, r=64 is caught by rounds first)',
      hash: stored('m=18$r=64$s=Bw=='),
      reason: 'rounds must be between 1 and 32',
      recognised: true,
    },
    {
      description: 'N >= 2^(16r) (m=16, r=1)',
      hash: stored('m=16$r=1$s=Bw=='),
      reason: 'mem_cost must be less than 16 * rounds',
      recognised: true,
    },
  ])('rejects $description', ({ hash, reason, recognised }) => {
    expect(parseIdpScrypt(hash)).toEqual({ ok: false, reason, recognised });
  });
});
