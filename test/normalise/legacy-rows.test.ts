import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { bcryptHash, bcryptPassword } from '../bulk-import/fixtures.js';
import { call, snapshot, useTestApp } from '../helper.js';

const phoneMessage = 'phoneNumber must be in international format with a leading + and country code, e.g. +14155552671\n';
const pl = { rid: 'passwordless' };

// Rows as earlier versions stored them: phone numbers and emails kept as sent, which the rules now refuse.
const legacyRows: [string, string, string | null, string | null, string | null, string | null][] = [
  ['legacy-ep', 'emailpassword', 'bob smith@example.com', null, null, bcryptHash],
  ['legacy-nfd', 'emailpassword', 'jose\u0301@example.com', null, null, bcryptHash],
  ['legacy-phone', 'passwordless', null, '14155552673', null, null],
  ['legacy-zw', 'passwordless', 'ad\u200Ba@example.com', null, null, null],
  ['legacy-tp', 'thirdparty', 'not-an-email', null, 'g-legacy', null],
];
const currentRows: typeof legacyRows = [
  ['current-ep', 'emailpassword', 'ok@example.com', null, null, bcryptHash],
  ['current-pl', 'passwordless', 'josé@example.com', '+14155552671', null, null],
];

function readmeQuery(): string {
  const readme = fs.readFileSync('docs/contacts.md', 'utf8');
  const match = /```sql\n(SELECT user_id, recipe_id, email, phone_number FROM users[^`]*)```/.exec(readme);
  if (!match) throw new Error('docs/contacts.md query for rows stored by earlier versions not found');
  return match[1];
}

describe('rows stored by earlier versions that the rules now refuse', () => {
  const t = useTestApp();
  beforeAll(async () => {
    for (const [id, recipe, email, phone, tpUserId, hash] of [...legacyRows, ...currentRows]) {
      await t.db.pool.query(
        `INSERT INTO users (user_id, recipe_id, time_joined, email, phone_number, third_party_id, third_party_user_id, password_hash)
         VALUES ($1, $2, 1, $3, $4, $5, $6, $7)`,
        [id, recipe, email, phone, tpUserId && 'google', tpUserId, hash],
      );
    }
  });

  it('still sign in, with the spelling they were stored under', async () => {
    for (const [email, id] of [
      ['bob smith@example.com', 'legacy-ep'],
      [' Bob Smith@Example.com', 'legacy-ep'],
      ['Jose\u0301@example.com', 'legacy-nfd'],
    ]) {
      const reply = await call(t.app, 'POST', '/recipe/signin', { body: { email, password: bcryptPassword } });
      expect([reply.json.status, reply.json.user?.id]).toEqual(['OK', id]);
    }
  });

  it('are found by every lookup', async () => {
    const found = [
      await call(t.app, 'GET', '/recipe/user', { query: { email: 'bob smith@example.com' } }),
      await call(t.app, 'GET', '/recipe/user', { query: { phoneNumber: '14155552673' }, headers: pl }),
      await call(t.app, 'GET', '/recipe/user', { query: { email: 'ad\u200Ba@example.com' }, headers: pl }),
    ];
    expect(found.map((reply) => [reply.statusCode, reply.json.user?.id])).toEqual([
      [200, 'legacy-ep'],
      [200, 'legacy-phone'],
      [200, 'legacy-zw'],
    ]);
    const byPhone = await call(t.app, 'GET', '/users/by-accountinfo', {
      query: { phoneNumber: '14155552673', doUnionOfAccountInfo: 'true' },
    });
    expect(byPhone.json.users.map((user: { id: string }) => user.id)).toEqual(['legacy-phone']);
    const byEmail = await call(t.app, 'GET', '/recipe/users/by-email', { query: { email: 'not-an-email' } });
    expect(byEmail.json.users.map((user: { id: string }) => user.id)).toEqual(['legacy-tp']);
  });

  it('a refused value that matches no stored row is not found, as the reference answers it', async () => {
    const reply = await call(t.app, 'GET', '/recipe/user', { query: { phoneNumber: '14155559999' }, headers: pl });
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'UNKNOWN_PHONE_NUMBER_ERROR' }]);
    const byInfo = await call(t.app, 'GET', '/users/by-accountinfo', {
      query: { phoneNumber: '14155559999', doUnionOfAccountInfo: 'true' },
    });
    expect([byInfo.statusCode, byInfo.json]).toEqual([200, { status: 'OK', users: [] }]);
  });

  it('may be sent again unchanged, while a new value must follow the rules', async () => {
    const same = await call(t.app, 'PUT', '/recipe/user', {
      body: { recipeUserId: 'legacy-phone', phoneNumber: '14155552673', email: 'New@example.com' },
      headers: pl,
    });
    expect(same.json).toEqual({ status: 'OK' });
    const before = await snapshot(t.db);
    const changed = await call(t.app, 'PUT', '/recipe/user', {
      body: { recipeUserId: 'legacy-phone', phoneNumber: '14155559999' },
      headers: pl,
    });
    expect([changed.statusCode, changed.body]).toEqual([400, phoneMessage]);
    expect(await snapshot(t.db)).toEqual(before);
    const { rows } = await t.db.pool.query("SELECT email, phone_number FROM users WHERE user_id = 'legacy-phone'");
    expect(rows).toEqual([{ email: 'new@example.com', phone_number: '14155552673' }]);

    const tp = { thirdPartyId: 'google', thirdPartyUserId: 'g-legacy' };
    const again = await call(t.app, 'POST', '/recipe/signinup', { body: { ...tp, email: { id: 'not-an-email' } } });
    expect([again.statusCode, again.json.createdNewUser, again.json.user.id]).toEqual([200, false, 'legacy-tp']);
    const other = await call(t.app, 'POST', '/recipe/signinup', { body: { ...tp, email: { id: 'still not' } } });
    expect([other.statusCode, other.body]).toEqual([400, 'email is not a valid email address: it contains a space\n']);
  });

  it('are listed by the query docs/contacts.md gives', async () => {
    const { rows } = await t.db.pool.query<{ user_id: string }>(readmeQuery());
    expect(rows.map((row) => row.user_id).sort()).toEqual(['legacy-ep', 'legacy-nfd', 'legacy-phone', 'legacy-tp', 'legacy-zw']);
  });
});
