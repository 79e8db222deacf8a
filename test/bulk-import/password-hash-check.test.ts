import { describe, expect, it } from 'vitest';
import { call, countRows, useTestApp } from '../helper.js';
import { bcryptHash, firebasePassword, hashParams } from '../cli/fixtures.js';
import { PUBLISHED_SCRYPT, PUBLISHED_SCRYPT_HASH, SIGNER_KEY } from '../hashing/vectors.js';

const t = useTestApp({ idp_password_hashing_signer_key: SIGNER_KEY });

function check(body: object) {
  return call(t.app, 'POST', '/bulk-import/password-hash/check', { body });
}

describe('POST /bulk-import/password-hash/check', () => {
  it('answers whether the password matches a bcrypt hash made elsewhere, storing nothing', async () => {
    const passwordHash = bcryptHash('right-pw');
    expect((await check({ passwordHash, hashingAlgorithm: 'bcrypt', password: 'right-pw' })).json).toEqual({
      status: 'OK',
      verified: true,
    });
    expect((await check({ passwordHash, hashingAlgorithm: 'bcrypt', password: 'wrong-pw' })).json).toEqual({
      status: 'OK',
      verified: false,
    });
    // The algorithm may be left for the core to detect, as an import may.
    expect((await check({ passwordHash, password: 'right-pw' })).json).toEqual({ status: 'OK', verified: true });
    expect(await countRows(t.db, 'users')).toBe(0);
  });

  it("tells an export's scrypt hash made with the core's signer key from one made with another key", async () => {
    const { password } = PUBLISHED_SCRYPT;
    const same = await check({ passwordHash: PUBLISHED_SCRYPT_HASH, hashingAlgorithm: 'idp_scrypt', password });
    expect(same.json).toEqual({ status: 'OK', verified: true });
    // Made by an independent implementation with another signer key than the core's.
    const other = await firebasePassword(password);
    const { memCost, rounds, saltSeparator } = hashParams;
    const otherHash = `$f_scrypt$${other.passwordHash}$${other.salt}$m=${memCost}$r=${rounds}$s=${saltSeparator}`;
    expect((await check({ passwordHash: otherHash, hashingAlgorithm: 'idp_scrypt', password })).json).toEqual({
      status: 'OK',
      verified: false,
    });
  });

  it("without a password, answers whether it would import the hash: an export's parameters it takes or refuses", async () => {
    const { saltSeparator } = hashParams;
    const withParameters = (memCost: number, rounds: number) =>
      `$f_scrypt$${Buffer.alloc(64, 1).toString('base64')}$${Buffer.alloc(8, 2).toString('base64')}$m=${memCost}$r=${rounds}$s=${saltSeparator}`;
    expect((await check({ passwordHash: withParameters(14, 8), hashingAlgorithm: 'idp_scrypt' })).json).toEqual({ status: 'OK' });
    const refused = await check({ passwordHash: withParameters(17, 1), hashingAlgorithm: 'idp_scrypt' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('mem_cost must be less than 16 * rounds');
  });

  it.each([
    ['a hash the import refuses', { passwordHash: '$2b$10$short', hashingAlgorithm: 'bcrypt', password: 'pw' }, /bcrypt/i],
    ['an unknown algorithm', { passwordHash: 'abc', hashingAlgorithm: 'rot13', password: 'pw' }, /Unsupported password hashing algorithm/],
    [
      'a hash longer than any format',
      { passwordHash: `$2b$${'a'.repeat(3000)}`, hashingAlgorithm: 'bcrypt', password: 'pw' },
      /passwordHash is too long/,
    ],
    ['a lazy pointer', { passwordHash: '$lazy$legacy', hashingAlgorithm: 'lazy', password: 'pw' }, /holds no hash to check/],
    ['a non-string password', { passwordHash: bcryptHash('pw'), hashingAlgorithm: 'bcrypt', password: 7 }, /password/],
  ])('refuses %s with a 400 that says what is wrong', async (_name, body, message) => {
    const reply = await check(body);
    expect(reply.statusCode).toBe(400);
    expect(reply.body).toMatch(message);
    expect(reply.body).not.toContain('pw"');
  });
});
