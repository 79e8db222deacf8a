import { describe, expect, it } from 'vitest';
import { bcryptFormat, hashBcrypt, parseBcrypt } from '../../src/hashing/bcrypt.js';
import { BCRYPT_VECTORS, flipDigestCharacter } from './vectors.js';

const BODY = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ./';
const VALID_TAIL = BODY.slice(0, 53);

async function verify(password: string, hash: string): Promise<boolean | string> {
  const parsed = bcryptFormat.parse(hash);
  return parsed.ok ? bcryptFormat.verify(password, parsed.value, {}) : parsed.reason;
}

describe('bcrypt verifier with bcryptjs vectors', () => {
  it.each(BCRYPT_VECTORS)('$description: right password matches', async ({ password, hash }) => {
    expect(await verify(password, hash)).toBe(true);
  });

  it.each(BCRYPT_VECTORS)('$description: wrong password does not match', async ({ password, hash }) => {
    expect(await verify(password + '!', hash)).toBe(false);
  });

  it.each(BCRYPT_VECTORS)('$description: one digest character flipped does not match', async ({ password, hash }) => {
    expect(await verify(password, flipDigestCharacter(hash, 29))).toBe(false);
  });

  it.each(BCRYPT_VECTORS)('$description: one salt character flipped does not match', async ({ password, hash }) => {
    expect(await verify(password, flipDigestCharacter(hash, 7))).toBe(false);
  });
});

describe('bcrypt parse', () => {
  it.each([
    { description: 'valid $2a$', hash: `$2a$04$${VALID_TAIL}`, cost: 4 },
    { description: 'valid $2y$ at the maximum cost', hash: `$2y$31$${VALID_TAIL}`, cost: 31 },
  ])('accepts $description', ({ hash, cost }) => {
    expect(parseBcrypt(hash)).toEqual({ ok: true, value: { cost, normalised: '$2a' + hash.slice(3) } });
  });

  it.each([
    { description: 'unknown variant', hash: `$2c$10$${VALID_TAIL}`, reason: 'must start with $2a$, $2b$, $2x$ or $2y$' },
    { description: 'prefix without $', hash: `$2a10$${VALID_TAIL}`, reason: 'must start with $2a$, $2b$, $2x$ or $2y$' },
    { description: 'one-digit cost', hash: `$2a$4$${VALID_TAIL}`, reason: 'cost must be two digits' },
    { description: 'cost 03', hash: `$2b$03$${VALID_TAIL}`, reason: 'cost must be between 04 and 31' },
    { description: 'cost 32', hash: `$2b$32$${VALID_TAIL}`, reason: 'cost must be between 04 and 31' },
    { description: 'three-digit cost', hash: `$2b$100$${VALID_TAIL}`, reason: 'cost must be followed by $' },
    { description: 'truncated', hash: `$2b$10$${VALID_TAIL.slice(0, 52)}`, reason: 'salt and hash must be exactly 53 characters, got 52' },
    { description: 'too long', hash: `$2b$10$${VALID_TAIL}a`, reason: 'salt and hash must be exactly 53 characters, got 54' },
    { description: 'nothing after cost', hash: '$2b$10$', reason: 'salt and hash must be exactly 53 characters, got 0' },
    {
      description: 'base64 + character',
      hash: `$2b$10$+${VALID_TAIL.slice(1)}`,
      reason: 'salt and hash must use only the characters ./A-Za-z0-9',
    },
    {
      description: 'trailing space',
      hash: `$2b$10$${VALID_TAIL.slice(1)} `,
      reason: 'salt and hash must use only the characters ./A-Za-z0-9',
    },
  ])('rejects $description', ({ hash, reason }) => {
    expect(parseBcrypt(hash)).toEqual({ ok: false, reason, recognised: false });
  });
});

describe('bcrypt hash', () => {
  it.each([
    { description: 'ASCII', password: 'new password' },
    { description: 'non-ASCII', password: 'ñew pässwörd ✓' },
  ])('round-trips a $description password', async ({ password }) => {
    const hash = await hashBcrypt(password, 5);
    expect(hash).toMatch(/^\$2b\$05\$[./A-Za-z0-9]{53}$/);
    expect(await verify(password, hash)).toBe(true);
    expect(await verify('other', hash)).toBe(false);
  });

  it('raises a cost below 4 to 4, as the binding does', async () => {
    expect(await hashBcrypt('pw', 1)).toMatch(/^\$2b\$04\$/);
  });
});
