import { beforeEach, describe, expect, it } from 'vitest';
import { call, countRows, snapshot, truncateAll, useTestApp } from '../helper.js';
import { bcryptHash, emailPasswordUser, importedUsers, passwordlessUser, thirdPartyUser } from './fixtures.js';
import { expectedWireUser } from '../wire-user.js';

const t = useTestApp();
beforeEach(async () => {
  await truncateAll(t.db);
  await t.db.pool.query("INSERT INTO roles (role) VALUES ('admin')");
});

describe('POST /bulk-import/import', () => {
  it('imports an email-password user at once, with mapping, verification, metadata and roles, and answers the user', async () => {
    const user = emailPasswordUser(
      1,
      { userMetadata: { a: { b: [1, 2] } }, userRoles: [{ role: 'admin', tenantIds: ['public'] }] },
      {
        isVerified: true,
        timeJoinedInMSSinceEpoch: 1600000000000,
      },
    );
    const reply = await call(t.app, 'POST', '/bulk-import/import', { body: user });
    expect([reply.statusCode, reply.json]).toEqual([
      200,
      {
        status: 'OK',
        user: expectedWireUser({
          recipeId: 'emailpassword',
          recipeUserId: 'ext-ep-1',
          timeJoined: 1600000000000,
          verified: true,
          email: 'user1@example.com',
        }),
      },
    ]);
    expect(await importedUsers(t.db)).toEqual([
      {
        user_id: expect.any(String),
        recipe_id: 'emailpassword',
        time_joined: 1600000000000,
        email: 'user1@example.com',
        phone_number: null,
        third_party_id: null,
        third_party_user_id: null,
        password_hash: bcryptHash,
        external_user_id: 'ext-ep-1',
        metadata: { a: { b: [1, 2] } },
        verified: ['user1@example.com'],
        roles: ['admin'],
      },
    ]);
    expect(await countRows(t.db, 'bulk_import_users')).toBe(0);
  });

  it('imports third-party and passwordless users; without an external id the id is the generated one', async () => {
    const tp = await call(t.app, 'POST', '/bulk-import/import', { body: thirdPartyUser(2, {}, { isVerified: true }) });
    expect(tp.statusCode).toBe(200);
    expect(tp.json.user.loginMethods[0]).toEqual({
      tenantIds: ['public'],
      recipeUserId: tp.json.user.id,
      verified: true,
      timeJoined: t.clock.nowMs,
      recipeId: 'thirdparty',
      email: 'tp2@example.com',
      thirdParty: { id: 'google', userId: 'g-2' },
    });
    const pl = await call(t.app, 'POST', '/bulk-import/import', { body: passwordlessUser(3) });
    const id = pl.json.user.id;
    expect(pl.json.user).toEqual(
      expectedWireUser({
        recipeId: 'passwordless',
        recipeUserId: id,
        timeJoined: t.clock.nowMs,
        verified: true,
        phoneNumber: '+14155551003',
      }),
    );
    expect(await countRows(t.db, 'users')).toBe(2);
  });

  it('hashes a plain-text password with the configured algorithm', async () => {
    const reply = await call(t.app, 'POST', '/bulk-import/import', {
      body: { loginMethods: [{ recipeId: 'emailpassword', email: 'plain@example.com', plainTextPassword: 'hunter2' }] },
    });
    expect(reply.statusCode).toBe(200);
    const { rows } = await t.db.pool.query('SELECT password_hash FROM users');
    expect(rows[0].password_hash).toMatch(/^\$2[ab]\$04\$.{53}$/);
  });

  it.each([
    ['validation errors', { loginMethods: [] }, ['At least one loginMethod is required.']],
    [
      'a role that does not exist',
      emailPasswordUser(9, { userRoles: [{ role: 'ghost', tenantIds: ['public'] }] }),
      ['Role ghost does not exist.'],
    ],
  ])('answers 400 with the errors for %s, storing nothing', async (_description, body, errors) => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/import', { body });
    expect([reply.statusCode, reply.json, reply.contentType]).toEqual([400, { errors }, 'application/json; charset=UTF-8']);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('answers the coded conflict and rolls the whole user back', async () => {
    expect((await call(t.app, 'POST', '/bulk-import/import', { body: emailPasswordUser(1) })).statusCode).toBe(200);
    const before = await snapshot(t.db);
    const cases: [unknown, string][] = [
      [
        emailPasswordUser(1, { externalUserId: 'other' }),
        'E003: A user with email user1@example.com already exists in emailpassword loginMethod.',
      ],
      [emailPasswordUser(2, { externalUserId: 'ext-ep-1' }), 'E031: A user with externalId ext-ep-1 already exists'],
    ];
    for (const [body, message] of cases) {
      const reply = await call(t.app, 'POST', '/bulk-import/import', { body });
      expect([reply.statusCode, reply.json]).toEqual([400, { errors: [message] }]);
    }
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('is app-scoped and needs an object body', async () => {
    const reply = await call(t.app, 'POST', '/tenant1/bulk-import/import', { body: emailPasswordUser(1) });
    expect([reply.statusCode, reply.body.trim()]).toEqual([403, 'Only public tenantId can call this app specific API']);
    const notJson = await call(t.app, 'POST', '/bulk-import/import', { body: '[]' });
    expect([notJson.statusCode, notJson.body.trim()]).toEqual([400, 'Invalid Json Input']);
  });
});
