import bcryptjs from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { parseLdap, verifyLdap } from '../../src/hashing/ldap.js';
import { LDAP_VECTORS } from './legacy-vectors.js';

async function verify(password: string, hash: string): Promise<boolean | string> {
  const parsed = parseLdap(hash);
  return parsed.ok ? verifyLdap(password, parsed.value) : parsed.reason;
}

/** Changes one bit of the first decoded byte, keeping the base64 canonical. */
function flipFirstDigestBit(hash: string): string {
  const start = hash.indexOf('}') + 1;
  const replacement = hash[start] === 'A' ? 'B' : 'A';
  return hash.slice(0, start) + replacement + hash.slice(start + 1);
}

describe('LDAP vectors', () => {
  it.each(LDAP_VECTORS)('$description ($source): right password matches', async ({ password, hash }) => {
    expect(await verify(password, hash)).toBe(true);
  });

  it.each(LDAP_VECTORS)('$description: wrong password does not match', async ({ password, hash }) => {
    expect(await verify(password + ' ', hash)).toBe(false);
  });

  it.each(LDAP_VECTORS.filter(({ hash }) => !hash.startsWith('{CRYPT}')))(
    '$description: one digest bit flipped does not match',
    async ({ password, hash }) => {
      expect(await verify(password, flipFirstDigestBit(hash))).toBe(false);
    },
  );

  it('{CRYPT} with a bcrypt string (made by bcryptjs) is verified by the bcrypt format', async () => {
    const hash = '{CRYPT}' + bcryptjs.hashSync('ldap bcrypt', 4);
    expect(await verify('ldap bcrypt', hash)).toBe(true);
    expect(await verify('ldap bcrypt!', hash)).toBe(false);
  });

  it('the scheme name is case-insensitive', async () => {
    expect(await verify('testing123', '{ssha}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr')).toBe(true);
  });
});

describe('LDAP parse', () => {
  it.each([
    {
      description: 'unknown scheme',
      hash: '{SSHA1}abcd',
      reason: 'must start with {MD5}, {SMD5}, {SHA}, {SSHA}, {SHA256}…{SSHA512} or {CRYPT}',
    },
    { description: 'unpadded base64', hash: '{MD5}/F4DjTilcDIIVEHn/nAQsA', reason: 'LDAP {MD5} value must be padded standard base64' },
    {
      description: 'URL-safe base64',
      hash: '{SHA}at-xg6SiyUovktq1redipHiJpaE=',
      reason: 'LDAP {SHA} value must be padded standard base64',
    },
    {
      description: 'non-zero unused bits',
      hash: '{SHA}at+xg6SiyUovktq1redipHiJpaF=',
      reason: 'LDAP {SHA} value must be padded standard base64',
    },
    { description: 'digest too long', hash: '{MD5}/F4DjTilcDIIVEHn/nAQsAAA', reason: 'LDAP {MD5} digest must be 16 bytes, got 18' },
    {
      description: 'salt of 3 bytes',
      hash: '{SSHA}' + Buffer.alloc(23).toString('base64'),
      reason: 'LDAP {SSHA} salt must be between 4 and 64 bytes after the 20-byte digest, got 3',
    },
    {
      description: 'salt of 65 bytes',
      hash: '{SSHA512}' + Buffer.alloc(129).toString('base64'),
      reason: 'LDAP {SSHA512} salt must be between 4 and 64 bytes after the 64-byte digest, got 65',
    },
    {
      description: 'bad inner crypt string',
      hash: '{CRYPT}$6$rounds=100$salt$abc',
      reason: 'LDAP {CRYPT} value: sha512-crypt rounds must be between 1000 and 1000000, got 100',
    },
    {
      description: 'bad inner bcrypt string',
      hash: '{CRYPT}$2a$03$' + 'a'.repeat(53),
      reason: 'LDAP {CRYPT} value: cost must be between 04 and 31',
    },
  ])('refuses $description', ({ hash, reason }) => {
    expect(parseLdap(hash)).toEqual({ ok: false, reason, recognised: false });
  });
});
