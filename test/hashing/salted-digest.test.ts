import { describe, expect, it } from 'vitest';
import { parseSaltedDigest, verifySaltedDigest } from '../../src/hashing/salted-digest.js';
import { SALTED_DIGEST_VECTORS } from './legacy-vectors.js';

async function verify(password: string, hash: string): Promise<boolean | string> {
  const parsed = parseSaltedDigest(hash);
  return parsed.ok ? verifySaltedDigest(password, parsed.value) : parsed.reason;
}

/** Flips a bit in the digest's first byte, keeping its encoding canonical (hex or base64). */
function flipDigest(hash: string): string {
  const start = hash.lastIndexOf('$') + 1;
  const replacement = hash[start] === 'a' ? 'b' : 'a';
  return hash.slice(0, start) + replacement + hash.slice(start + 1);
}

const b64 = (text: string) => Buffer.from(text).toString('base64');
const SHA256_DIGEST = Buffer.alloc(32).toString('base64');

describe('salted digest vectors', () => {
  it.each(SALTED_DIGEST_VECTORS)('$description ($source): right password matches', async ({ password, hash }) => {
    expect(await verify(password, hash)).toBe(true);
  });

  it.each(SALTED_DIGEST_VECTORS)('$description: wrong password does not match', async ({ password, hash }) => {
    expect(await verify(password.slice(0, -1), hash)).toBe(false);
  });

  it.each(SALTED_DIGEST_VECTORS)('$description: one digest character changed does not match', async ({ password, hash }) => {
    expect(await verify(password, flipDigest(hash))).toBe(false);
  });
});

describe('salted digest parse', () => {
  it.each([
    {
      description: 'unknown digest',
      hash: '$sha384$pf=e1BBU1NXT1JEfQ==$$' + SHA256_DIGEST,
      reason: expect.stringMatching(/^salted digest must be/),
    },
    {
      description: 'template without {PASSWORD}',
      hash: `$sha256$pf=${b64('{SALT}')}$${b64('s')}$${SHA256_DIGEST}`,
      reason: '$sha256$pf= template must contain {PASSWORD}',
    },
    {
      description: 'template of 257 characters',
      hash: `$sha256$pf=${b64('{PASSWORD}' + 'x'.repeat(247))}$${b64('s')}$${SHA256_DIGEST}`,
      reason: '$sha256$pf= template must be at most 256 characters, got 257',
    },
    {
      description: 'salt of 1025 bytes',
      hash: `$sha256$pf=${b64('{SALT}{PASSWORD}')}$${Buffer.alloc(1025).toString('base64')}$${SHA256_DIGEST}`,
      reason: '$sha256$pf= salt must be at most 1024 bytes, got 1025',
    },
    {
      description: 'digest of the wrong size',
      hash: `$sha256$pf=${b64('{SALT}{PASSWORD}')}$${b64('s')}$${Buffer.alloc(20).toString('base64')}`,
      reason: '$sha256$pf= digest must be 32 bytes for sha256, got 20',
    },
    {
      description: 'unpadded template',
      hash: `$sha256$pf=e1BBU1NXT1JEfQ$${b64('s')}$${SHA256_DIGEST}`,
      reason: '$sha256$pf= template must be padded base64',
    },
    {
      description: 'Django upper-case hex',
      hash: 'sha1$seasalt$CFF36EA83F5706CE9AA7454E63E431FC726B2DC8',
      reason: 'sha1$ digest must be lower-case hex',
    },
    {
      description: 'Django short hex',
      hash: 'md5$salt$d0fdddeda8cd92725d2b54148ac091',
      reason: 'md5$ digest must be 16 bytes for md5, got 15',
    },
    {
      description: 'unsalted md5 of sha1 size',
      hash: '$md5$at+xg6SiyUovktq1redipHiJpaE=',
      reason: '$md5$ digest must be 16 bytes for md5, got 20',
    },
  ])('refuses $description', ({ hash, reason }) => {
    expect(parseSaltedDigest(hash)).toEqual({ ok: false, reason, recognised: false });
  });
});
