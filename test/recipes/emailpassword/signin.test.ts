import { beforeEach, describe, expect, it } from 'vitest';
import { call, snapshot, truncateAll, useTestApp } from '../../helper.js';
import { BCRYPT_VECTORS, PUBLISHED_SCRYPT, PUBLISHED_SCRYPT_HASH, SIGNER_KEY } from '../../hashing/vectors.js';
import {
  SIGNIN,
  SIGNER_KEY_MISSING_MESSAGE,
  expectRejected,
  importHash,
  insertPasswordlessUser,
  mapUserId,
  signIn,
  signedIn,
  tenantNotFound,
} from './fixtures.js';

const BCRYPT = BCRYPT_VECTORS[0];
const WRONG = { status: 'WRONG_CREDENTIALS_ERROR' };

describe('POST /recipe/signin', () => {
  const t = useTestApp({ idp_password_hashing_signer_key: SIGNER_KEY, log_level: 'ERROR' });
  beforeEach(async () => {
    await truncateAll(t.db);
    t.logs.length = 0;
  });

  async function importUser(email: string, hash = BCRYPT.hash) {
    const reply = await importHash(t.app, email, hash);
    return { id: reply.json.user.id as string, email, timeJoined: t.clock.nowMs };
  }

  it.each([
    { description: 'no fields', body: {}, field: 'email' },
    { description: 'email a number, password missing', body: { email: 1 }, field: 'email' },
    { description: 'email null', body: { email: null, password: 'x' }, field: 'email' },
    { description: 'password missing', body: { email: 'a@x.com' }, field: 'password' },
    { description: 'password null', body: { email: 'a@x.com', password: null }, field: 'password' },
    { description: 'password a number', body: { email: 'a@x.com', password: 1234 }, field: 'password' },
    { description: 'password an object', body: { email: 'a@x.com', password: { value: 'x' } }, field: 'password' },
  ])('400 for $description, writing nothing', async ({ body, field }) => {
    await importUser('a@x.com');
    await expectRejected(t.db, () => call(t.app, 'POST', SIGNIN, { body }), 400, `Field name '${field}' is invalid in JSON input`);
  });

  it('400 for a body that is not a JSON object, and for another tenant or app', async () => {
    await expectRejected(t.db, () => call(t.app, 'POST', SIGNIN, { body: '"text"' }), 400, 'Invalid Json Input');
    const body = { email: 'a@x.com', password: BCRYPT.password };
    await expectRejected(t.db, () => call(t.app, 'POST', `/tenant1${SIGNIN}`, { body }), 400, tenantNotFound('public', 'tenant1'));
    await expectRejected(t.db, () => call(t.app, 'POST', `/appid-x/public${SIGNIN}`, { body }), 400, tenantNotFound('x', 'public'));
  });

  it('signs in with the email normalised, and writes nothing', async () => {
    const user = await importUser('alice@example.com', PUBLISHED_SCRYPT_HASH);
    const before = await snapshot(t.db);
    const reply = await signIn(t.app, ' \tALICE@Example.com\n', PUBLISHED_SCRYPT.password);
    expect([reply.statusCode, reply.json, reply.contentType]).toEqual([200, signedIn(user), 'application/json; charset=UTF-8']);
    expect(reply.body.endsWith('}\n')).toBe(true);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('answers WRONG_CREDENTIALS_ERROR for a wrong password, an empty one, and an unknown email alike', async () => {
    await importUser('bob@example.com');
    for (const [email, password] of [
      ['bob@example.com', 'wrong'],
      ['bob@example.com', ''],
      ['nobody@example.com', BCRYPT.password],
      ['nobody@example.com', ''],
    ]) {
      const reply = await signIn(t.app, email, password);
      expect([email, password, reply.statusCode, reply.json]).toEqual([email, password, 200, WRONG]);
    }
  });

  it('only finds email-password users', async () => {
    await insertPasswordlessUser(t.db, 'pl-user', 'carol@example.com', 1);
    expect((await signIn(t.app, 'carol@example.com', 'anything')).json).toEqual(WRONG);
  });

  it('refuses a stored hash that does not parse and logs the user id, never the hash', async () => {
    const broken = '$2b$04$tooShortToBeABcryptHash';
    await t.db.pool.query(
      `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, password_hash)
       VALUES ('broken-user', 'public', 'emailpassword', 1, 'dan@example.com', $1)`,
      [broken],
    );
    const reply = await signIn(t.app, 'dan@example.com', 'whatever-password');
    expect([reply.statusCode, reply.json]).toEqual([200, WRONG]);
    const lines = t.logs.map((line) => JSON.parse(line));
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, userId: 'broken-user', msg: 'stored password hash does not parse; sign-in refused' }),
    ]);
    expect(t.logs.join('')).not.toContain('tooShort');
    expect(t.logs.join('')).not.toContain('whatever-password');
  });

  it('answers the id of a mapped user as id and recipeUserId, and reflects verification', async () => {
    const user = await importUser('erin@example.com');
    await mapUserId(t.db, user.id, 'legacy-erin');
    await t.db.pool.query('INSERT INTO email_verifications (user_id, email) VALUES ($1, $2)', [user.id, 'erin@example.com']);
    const reply = await signIn(t.app, 'erin@example.com', BCRYPT.password);
    expect(reply.json).toEqual(signedIn({ ...user, id: 'legacy-erin', verified: true }));
  });

  it.each(['2.7', '2.21', '3.0', '3.1', '4.0', '5.0', '5.3'])('answers the shapes of cdi-version %s', async (version) => {
    const user = await importUser('frank@example.com');
    const reply = await signIn(t.app, 'frank@example.com', BCRYPT.password, { 'cdi-version': version });
    expect(reply.json).toEqual(signedIn(user, version));
    expect((await signIn(t.app, 'frank@example.com', 'nope', { 'cdi-version': version })).json).toEqual(WRONG);
  });
});

describe('POST /recipe/signin after the signer key is removed', () => {
  const keyed = useTestApp({ idp_password_hashing_signer_key: SIGNER_KEY });
  const keyless = useTestApp({}, { sharing: keyed });

  it('answers the 500 naming the key for a scrypt-variant user, and still signs in bcrypt users', async () => {
    await importHash(keyed.app, 'scrypt@example.com', PUBLISHED_SCRYPT_HASH);
    const bcryptUser = (await importHash(keyed.app, 'bcrypt@example.com', BCRYPT.hash)).json.user;

    await expectRejected(
      keyless.db,
      () => signIn(keyless.app, 'scrypt@example.com', PUBLISHED_SCRYPT.password),
      500,
      SIGNER_KEY_MISSING_MESSAGE,
    );
    await expectRejected(keyless.db, () => signIn(keyless.app, 'scrypt@example.com', 'wrong'), 500, SIGNER_KEY_MISSING_MESSAGE);
    const reply = await signIn(keyless.app, 'bcrypt@example.com', BCRYPT.password);
    expect(reply.json).toEqual(signedIn({ id: bcryptUser.id, email: 'bcrypt@example.com', timeJoined: bcryptUser.timeJoined }));
    expect((await signIn(keyed.app, 'scrypt@example.com', PUBLISHED_SCRYPT.password)).json.status).toBe('OK');
  });
});
