import { beforeEach, describe, expect, it } from 'vitest';
import { call, snapshot, truncateAll, useTestApp } from '../helper.js';
import { bcryptHash, bcryptPassword, queueRows } from '../bulk-import/fixtures.js';

// Issue 27, item 1: an imported user whose external id is another user's id made both users answer to one id (a
// sign-in showed the attacker the victim's id; GET /user/id and POST /user/remove with it reached the victim).
const e030 = 'E030: Cannot create a userId mapping where the externalId is also a SuperTokens userID';
const e031 = (id: string) => `E031: A user with externalId ${id} already exists`;

const t = useTestApp({ bulk_import_worker: false, bulk_migration_parallelism: 1, bulk_migration_sleep_between_rounds_in_batch_ms: 0 });

const attacker = (externalUserId: string) => ({
  externalUserId,
  loginMethods: [{ recipeId: 'emailpassword', email: 'attacker@example.com', passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' }],
});

async function signUpVictim(): Promise<string> {
  const reply = await call(t.app, 'POST', '/recipe/signup', { body: { email: 'victim@example.com', password: 'victim-password-1' } });
  expect(reply.json.status).toBe('OK');
  return reply.json.user.id as string;
}

async function expectVictimIntact(victimId: string): Promise<void> {
  const byId = await call(t.app, 'GET', '/user/id', { query: { userId: victimId } });
  expect(byId.json.user.emails).toEqual(['victim@example.com']);
  const { rows } = await t.db.pool.query('SELECT user_id FROM user_id_mappings WHERE external_user_id = $1', [victimId]);
  expect(rows).toEqual([]);
}

async function idsAnsweringTo(id: string): Promise<string[]> {
  const { rows } = await t.db.pool.query(
    `SELECT user_id FROM user_ids WHERE user_id = $1 UNION ALL SELECT user_id FROM user_id_mappings WHERE external_user_id = $1`,
    [id],
  );
  return rows.map((row: { user_id: string }) => row.user_id);
}

describe('an external id that is another user id', () => {
  beforeEach(() => truncateAll(t.db));

  it('is refused by POST /bulk-import/import, which writes nothing', async () => {
    const victimId = await signUpVictim();
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/import', { body: attacker(victimId) });
    expect([reply.statusCode, reply.json]).toEqual([400, { errors: [e030] }]);
    expect(await snapshot(t.db)).toEqual(before);
    await expectVictimIntact(victimId);
  });

  it('is predicted by the dry run', async () => {
    const victimId = await signUpVictim();
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [attacker(victimId)] }, query: { dryRun: 'true' } });
    expect([reply.statusCode, reply.json]).toEqual([
      400,
      {
        error: 'Data has missing or invalid fields. Please check the users field for more details.',
        users: [{ index: 0, errors: [e030] }],
      },
    ]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('fails the queued user with E030, and the attacker cannot sign in to reach the victim', async () => {
    const victimId = await signUpVictim();
    const queued = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [attacker(victimId)] } });
    expect(queued.statusCode).toBe(200);
    await t.app.services.bulkImportWorker.processUntilEmpty();
    expect(await queueRows(t.db)).toEqual([{ id: queued.json.users[0].loginMethods[0].userId, status: 'FAILED', error_message: e030 }]);
    const signIn = await call(t.app, 'POST', '/recipe/signin', { body: { email: 'attacker@example.com', password: bcryptPassword } });
    expect(signIn.json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    await expectVictimIntact(victimId);
  });

  it('fails the user of importNow with E030', async () => {
    const victimId = await signUpVictim();
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [attacker(victimId)] }, query: { importNow: 'true' } });
    expect(reply.statusCode).toBe(200);
    expect(await queueRows(t.db)).toEqual([{ id: reply.json.users[0].loginMethods[0].userId, status: 'FAILED', error_message: e030 }]);
    await expectVictimIntact(victimId);
    // The victim is still the only user POST /user/remove with its id would reach.
    expect(await idsAnsweringTo(victimId)).toEqual([victimId]);
  });

  it('is refused when the other user is queued in the same batch', async () => {
    const first = await call(t.app, 'POST', '/bulk-import/users', {
      body: { users: [{ loginMethods: [{ recipeId: 'passwordless', email: 'queued@example.com' }] }] },
    });
    const queuedId = first.json.users[0].loginMethods[0].userId as string;
    const second = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [attacker(queuedId)] } });
    await t.app.services.bulkImportWorker.processUntilEmpty();
    // Whichever the batch takes first keeps the id; the other fails with the reason.
    const attackerRow = { id: second.json.users[0].loginMethods[0].userId, status: 'FAILED', error_message: e030 };
    const queuedRow = { id: queuedId, status: 'FAILED', error_message: e031(queuedId) };
    expect([[attackerRow], [queuedRow]]).toContainEqual(await queueRows(t.db));
    expect(await idsAnsweringTo(queuedId)).toHaveLength(1);
  });

  it('taken first by a mapping fails the queued user whose id it is (E031), so no id ever names two users', async () => {
    const first = await call(t.app, 'POST', '/bulk-import/users', {
      body: { users: [{ loginMethods: [{ recipeId: 'passwordless', email: 'queued@example.com' }] }] },
    });
    const queuedId = first.json.users[0].loginMethods[0].userId as string;
    const taken = await call(t.app, 'POST', '/bulk-import/import', { body: attacker(queuedId) });
    expect(taken.statusCode).toBe(200);
    await t.app.services.bulkImportWorker.processUntilEmpty();
    expect(await queueRows(t.db)).toEqual([{ id: queuedId, status: 'FAILED', error_message: e031(queuedId) }]);
    expect(await idsAnsweringTo(queuedId)).toHaveLength(1);
    const byId = await call(t.app, 'GET', '/user/id', { query: { userId: queuedId } });
    expect(byId.json.user.emails).toEqual(['attacker@example.com']);
  });

  it('stays allowed on POST /recipe/userid/map with force (contract §9.1), refused without', async () => {
    const victimId = await signUpVictim();
    const other = await call(t.app, 'POST', '/recipe/signup', { body: { email: 'other@example.com', password: 'other-password-1' } });
    const otherId = other.json.user.id as string;
    const body = { superTokensUserId: otherId, externalUserId: victimId };
    const refused = await call(t.app, 'POST', '/recipe/userid/map', { body });
    expect([refused.statusCode, refused.body.trim()]).toEqual([
      400,
      'Cannot create a userId mapping where the externalId is also a SuperTokens userID',
    ]);
    const forced = await call(t.app, 'POST', '/recipe/userid/map', { body: { ...body, force: true } });
    expect([forced.statusCode, forced.json]).toEqual([200, { status: 'OK' }]);
  });
});

describe('the database itself', () => {
  beforeEach(() => truncateAll(t.db));

  const failureOf = (sql: string, values: unknown[]) =>
    t.db.pool.query(sql, values).then(
      () => expect.unreachable('the statement succeeded'),
      (error: { code: string; constraint: string }) => [error.code, error.constraint],
    );

  it('refuses a mapping whose external id is a user id unless its transaction forces it', async () => {
    const victimId = await signUpVictim();
    const other = await call(t.app, 'POST', '/recipe/signup', { body: { email: 'other@example.com', password: 'other-password-1' } });
    const insert = 'INSERT INTO user_id_mappings (user_id, external_user_id) VALUES ($1, $2)';
    expect(await failureOf(insert, [other.json.user.id, victimId])).toEqual(['23505', 'user_id_mappings__external_user_id_not_user_id']);
    const client = await t.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT set_config('identity_core.force_user_id_mapping', 'on', true)`);
      await client.query(insert, [other.json.user.id, victimId]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect(await idsAnsweringTo(victimId)).toEqual([victimId, other.json.user.id]);
  });

  it('refuses a new user whose id is an external id', async () => {
    const victimId = await signUpVictim();
    await t.db.pool.query(`INSERT INTO user_id_mappings (user_id, external_user_id) VALUES ($1, 'taken-id')`, [victimId]);
    const insert = `INSERT INTO users (user_id, tenant_id, recipe_id, email, time_joined) VALUES ('taken-id', 'public', 'passwordless', 'x@example.com', 1)`;
    expect(await failureOf(insert, [])).toEqual(['23505', 'user_ids__user_id_not_external_user_id']);
  });
});
