import { describe, expect, it } from 'vitest';
import { parseHmac, verifyHmac } from '../../src/hashing/hmac.js';
import { HMAC_VECTORS } from './legacy-vectors.js';

async function verify(password: string, hash: string): Promise<boolean | string> {
  const parsed = parseHmac(hash);
  return parsed.ok ? verifyHmac(password, parsed.value) : parsed.reason;
}

const key = Buffer.from('k').toString('base64');

describe('HMAC vectors', () => {
  it.each(HMAC_VECTORS)('$description ($source): right password matches', async ({ password, hash }) => {
    expect(await verify(password, hash)).toBe(true);
  });

  it.each(HMAC_VECTORS)('$description: wrong password does not match', async ({ password, hash }) => {
    expect(await verify(password + '!', hash)).toBe(false);
  });

  it.each(HMAC_VECTORS)('$description: another key does not match', async ({ password, hash }) => {
    expect(await verify(password, hash.slice(0, hash.lastIndexOf('$') + 1) + Buffer.from('other key').toString('base64'))).toBe(false);
  });
});

describe('HMAC parse', () => {
  it.each([
    { description: 'md4', hash: `$hmac-md4$${Buffer.alloc(16).toString('base64')}$${key}`, reason: expect.stringMatching(/^HMAC must be/) },
    {
      description: 'missing key',
      hash: `$hmac-sha1$${Buffer.alloc(20).toString('base64')}`,
      reason: expect.stringMatching(/^HMAC must be/),
    },
    {
      description: 'empty key',
      hash: `$hmac-sha1$${Buffer.alloc(20).toString('base64')}$`,
      reason: '$hmac-sha1$ key must be between 1 and 1024 bytes, got 0',
    },
    {
      description: 'key of 1025 bytes',
      hash: `$hmac-sha1$${Buffer.alloc(20).toString('base64')}$${Buffer.alloc(1025).toString('base64')}`,
      reason: '$hmac-sha1$ key must be between 1 and 1024 bytes, got 1025',
    },
    {
      description: 'MAC of the wrong size',
      hash: `$hmac-sha256$${Buffer.alloc(20).toString('base64')}$${key}`,
      reason: '$hmac-sha256$ MAC must be 32 bytes or their 64 lower-case hex characters, got 20 bytes',
    },
    {
      description: 'upper-case hex text',
      hash: `$hmac-md5$${Buffer.from('AB'.repeat(16)).toString('base64')}$${key}`,
      reason: '$hmac-md5$ MAC must be 16 bytes or their 32 lower-case hex characters, got 32 bytes',
    },
    { description: 'MAC not base64', hash: `$hmac-md5$not*base64$${key}`, reason: '$hmac-md5$ MAC must be padded base64' },
  ])('refuses $description', ({ hash, reason }) => {
    expect(parseHmac(hash)).toEqual({ ok: false, reason, recognised: false });
  });
});
