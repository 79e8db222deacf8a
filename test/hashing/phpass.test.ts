import { describe, expect, it } from 'vitest';
import { parsePhpass, verifyPhpass } from '../../src/hashing/phpass.js';
import { PHPASS_VECTORS } from './legacy-vectors.js';

async function verify(password: string, hash: string): Promise<boolean | string> {
  const parsed = parsePhpass(hash);
  return parsed.ok ? verifyPhpass(password, parsed.value) : parsed.reason;
}

function flipChecksumCharacter(hash: string): string {
  const index = hash.length - 3;
  return hash.slice(0, index) + (hash[index] === 'A' ? 'B' : 'A') + hash.slice(index + 1);
}

describe('phpass vectors', () => {
  it.each(PHPASS_VECTORS)('$description ($source): right password matches', async ({ password, hash }) => {
    expect(await verify(password, hash)).toBe(true);
  });

  it.each(PHPASS_VECTORS)('$description: wrong password does not match', async ({ password, hash }) => {
    expect(await verify(password.toUpperCase(), hash)).toBe(false);
  });

  it.each(PHPASS_VECTORS)('$description: one checksum character flipped does not match', async ({ password, hash }) => {
    expect(await verify(password, flipChecksumCharacter(hash))).toBe(false);
  });

  it('a Drupal 7 hash of a Drupal 6 user does not match without its U marker', async () => {
    const layered = PHPASS_VECTORS.find(({ hash }) => hash.startsWith('U$'))!;
    expect(await verify(layered.password, layered.hash.slice(1))).toBe(false);
  });
});

describe('phpass parse', () => {
  it.each([
    { description: 'lowest count', hash: '$P$5IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0', log2Rounds: 7 },
    { description: 'highest count', hash: '$S$GTOxWPdvJRs0P/xZBdrrPlGgzViOS0drHu3jaIjitesfttrp18bk', log2Rounds: 18 },
  ])('accepts $description', ({ hash, log2Rounds }) => {
    const parsed = parsePhpass(hash);
    expect(parsed.ok && parsed.value.log2Rounds).toBe(log2Rounds);
  });

  it.each([
    { description: 'unknown prefix', hash: '$Q$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0', reason: 'must start with $P$, $H$, $S$, U$P$ or U$S$' },
    {
      description: 'count 2^6',
      hash: '$P$4IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0',
      reason: 'phpass $P$ count must be between 2^7 and 2^18 rounds, got 2^6',
    },
    {
      description: 'count 2^30',
      hash: '$S$STOxWPdvJRs0P/xZBdrrPlGgzViOS0drHu3jaIjitesfttrp18bk',
      reason: 'phpass $S$ count must be between 2^7 and 2^18 rounds, got 2^30',
    },
    {
      description: 'md5 checksum of Drupal length',
      hash: '$P$5TOxWPdvJRs0P/xZBdrrPlGgzViOS0drHu3jaIjitesfttrp18bk',
      reason: 'phpass $P$ must have exactly 31 characters after the prefix (count, salt, checksum), got 52',
    },
    {
      description: 'Drupal hash one character short',
      hash: 'U$S$9c47LGZuhR6TvhRQXzymkJIQ3mXthUCc6KDEGTt4B7eOL/H9Yku',
      reason: 'phpass U$S$ must have exactly 52 characters after the prefix (count, salt, checksum), got 51',
    },
    {
      description: 'character outside the alphabet',
      hash: '$H$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r-L0',
      reason: 'phpass $H$ count, salt and checksum must use only the characters ./0-9A-Za-z',
    },
    {
      description: 'md5 padding bits',
      hash: '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.Lz',
      reason: 'phpass $P$ checksum has non-zero padding bits in its last character',
    },
  ])('refuses $description', ({ hash, reason }) => {
    expect(parsePhpass(hash)).toEqual({ ok: false, reason, recognised: false });
  });
});
