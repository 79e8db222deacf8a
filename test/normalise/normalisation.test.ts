import { describe, expect, it } from 'vitest';
import { bcryptHash, bcryptPassword } from '../bulk-import/fixtures.js';
import { call, snapshot, useTestApp } from '../helper.js';
import { consumeWithLink, createCode } from '../recipes/passwordless/flow-helpers.js';

const nfd = 'Jose\u0301@Example.com';
const nfc = 'jos\u00e9@example.com';

describe('contact normalisation', () => {
  const t = useTestApp({}, { truncateEach: true });

  const users = async () => (await t.db.pool.query('SELECT recipe_id, email, phone_number FROM users ORDER BY recipe_id, email')).rows;
  const importHash = (email: string, passwordHash = bcryptHash) =>
    call(t.app, 'POST', '/recipe/user/passwordhash/import', { body: { email, passwordHash } });

  it('stores phone numbers in E.164, so every spelling of one number is one passwordless user', async () => {
    const first = await consumeWithLink(t.app, await createCode(t.app, { phoneNumber: ' +1 (415) 555-2671 ' }));
    expect(first.json.createdNewUser).toBe(true);
    for (const spelling of ['+14155552671', '+1 415.555.2671', '+1-415-555-2671']) {
      const again = await consumeWithLink(t.app, await createCode(t.app, { phoneNumber: spelling }));
      expect([again.json.createdNewUser, again.json.user.id]).toEqual([false, first.json.user.id]);
    }
    expect(await users()).toEqual([{ recipe_id: 'passwordless', email: null, phone_number: '+14155552671' }]);
    const found = await call(t.app, 'GET', '/recipe/user', { query: { phoneNumber: '+1 415 555 2671' }, headers: { rid: 'passwordless' } });
    expect(found.json.user.id).toBe(first.json.user.id);
  });

  it('stores emails in NFC, so NFD and NFC spellings are one user on every recipe', async () => {
    expect((await importHash(nfd)).json.didUserAlreadyExist).toBe(false);
    expect((await importHash(nfc)).json.didUserAlreadyExist).toBe(true);
    const signIn = await call(t.app, 'POST', '/recipe/signin', { body: { email: nfd, password: bcryptPassword } });
    expect(signIn.json.status).toBe('OK');

    const first = await consumeWithLink(t.app, await createCode(t.app, { email: nfd }));
    const second = await consumeWithLink(t.app, await createCode(t.app, { email: nfc }));
    expect([second.json.createdNewUser, second.json.user.id]).toEqual([false, first.json.user.id]);

    const tp = { thirdPartyId: 'google', thirdPartyUserId: 'g-1' };
    await call(t.app, 'POST', '/recipe/signinup', { body: { ...tp, email: { id: nfd } } });
    expect((await call(t.app, 'GET', '/recipe/users/by-email', { query: { email: nfc } })).json.users).toHaveLength(1);
    expect(await users()).toEqual([
      { recipe_id: 'emailpassword', email: nfc, phone_number: null },
      { recipe_id: 'passwordless', email: nfc, phone_number: null },
      { recipe_id: 'thirdparty', email: nfc, phone_number: null },
    ]);
  });

  it('never lets KELVIN SIGN reach the account of the ASCII address', async () => {
    await importHash('kvictim@uni.com');
    const before = await snapshot(t.db);
    const attacks = [
      await importHash('\u212Avictim@uni.com', '$2b$04$abcdefghijklmnopqrstuuKQ7cd0bEMYcm5Zl8d5d7HDXXLtM2Gd6'),
      await call(t.app, 'POST', '/recipe/signinup/code', { body: { email: '\u212Avictim@uni.com' } }),
    ];
    const message = 'email is not a valid email address: it contains U+212A, which would be read as the ASCII "k"\n';
    expect(attacks.map((reply) => [reply.statusCode, reply.body])).toEqual(Array(2).fill([400, message]));
    // Lookups find no one: never the ASCII address's account.
    const lookups = [
      await call(t.app, 'GET', '/recipe/user', { query: { email: '\u212Avictim@uni.com' } }),
      await call(t.app, 'GET', '/users/by-accountinfo', { query: { email: '\u212Avictim@uni.com', doUnionOfAccountInfo: 'true' } }),
    ];
    expect(lookups.map((reply) => [reply.statusCode, reply.json])).toEqual([
      [200, { status: 'UNKNOWN_EMAIL_ERROR' }],
      [200, { status: 'OK', users: [] }],
    ]);
    const signIn = await call(t.app, 'POST', '/recipe/signin', { body: { email: '\u212Avictim@uni.com', password: bcryptPassword } });
    expect(signIn.json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('answers sign-in with an address the rules refuse as wrong credentials, not a 400', async () => {
    for (const email of ['not-an-email', 'bob smith@example.com', '']) {
      const reply = await call(t.app, 'POST', '/recipe/signin', { body: { email, password: 'x' } });
      expect([reply.statusCode, reply.json]).toEqual([200, { status: 'WRONG_CREDENTIALS_ERROR' }]);
    }
  });

  it('keeps distinct non-ASCII addresses distinct', async () => {
    for (const email of ['ñandú@example.es', 'Straße@example.de', 'strasse@example.de', 'ΣΊΣΥΦΟΣ@example.gr', '用户@例子.中国']) {
      expect((await importHash(email)).json.didUserAlreadyExist, email).toBe(false);
    }
    expect((await users()).map((row) => row.email).sort()).toEqual(
      ['ñandú@example.es', 'straße@example.de', 'strasse@example.de', 'σίσυφος@example.gr', '用户@例子.中国'].sort(),
    );
  });
});
