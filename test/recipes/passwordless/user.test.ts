import { describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../../helper.js';
import { consumeWithLink, createCode } from './flow-helpers.js';
import { expectedWireUser } from '../../wire-user.js';

describe('GET and PUT /recipe/user with rid: passwordless', () => {
  const t = useTestApp({}, { truncateEach: true });

  const pl = { rid: 'passwordless' };
  const signUp = async (contact: Record<string, string>): Promise<string> =>
    (await consumeWithLink(t.app, await createCode(t.app, contact))).json.user.id;
  const update = (body: object, headers: Record<string, string> = {}) =>
    call(t.app, 'PUT', '/recipe/user', { body, headers: { ...pl, ...headers } });
  const contacts = async (id: string) => (await t.db.pool.query('SELECT email, phone_number FROM users WHERE user_id = $1', [id])).rows[0];
  const pendingContacts = async () =>
    (await t.db.pool.query('SELECT coalesce(email, phone_number) AS contact FROM passwordless_devices ORDER BY 1')).rows.map(
      (r) => r.contact,
    );
  const insertEmailPasswordUser = (id: string, email: string) =>
    t.db.pool.query(
      `INSERT INTO users (user_id, recipe_id, time_joined, email, password_hash) VALUES ($1, 'emailpassword', 1, $2, '$2a$10$x')`,
      [id, email],
    );

  it("accepts the seed's update: userId, email and phoneNumber without a cdi-version", async () => {
    const id = await signUp({ email: 'old@example.com' });
    const reply = await update({ userId: id, email: 'New@Example.com ', phoneNumber: '+44-207 183 8751' });
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'OK' }]);
    expect(await contacts(id)).toEqual({ email: 'new@example.com', phone_number: '+442071838751' });
    const user = await call(t.app, 'GET', '/recipe/user', { headers: pl, query: { userId: id } });
    expect(user.json).toEqual({
      status: 'OK',
      // The route leaves verification alone: only old@example.com was verified.
      user: expectedWireUser({
        recipeId: 'passwordless',
        recipeUserId: id,
        timeJoined: t.clock.nowMs,
        verified: false,
        email: 'new@example.com',
        phoneNumber: '+442071838751',
      }),
    });
    expect((await t.db.pool.query('SELECT email FROM email_verifications')).rows).toEqual([{ email: 'old@example.com' }]);
  });

  it('prefers recipeUserId over userId, and takes an external id', async () => {
    const id = await signUp({ email: 'a@example.com' });
    await t.db.pool.query('INSERT INTO user_id_mappings (user_id, external_user_id) VALUES ($1, $2)', [id, 'legacy-1']);
    expect((await update({ recipeUserId: 'legacy-1', userId: 'nobody', phoneNumber: '+14155552671' })).json).toEqual({ status: 'OK' });
    expect(await contacts(id)).toEqual({ email: 'a@example.com', phone_number: '+14155552671' });
    expect((await update({ recipeUserId: 'nobody', userId: id, phoneNumber: '+14155550000' })).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
  });

  it('treats absent as unchanged, null as clear, and a string as set', async () => {
    const id = await signUp({ email: 'a@example.com' });
    expect((await update({ recipeUserId: id, phoneNumber: '+14155552671' })).json).toEqual({ status: 'OK' });
    expect(await contacts(id)).toEqual({ email: 'a@example.com', phone_number: '+14155552671' });
    expect((await update({ recipeUserId: id, email: null })).json).toEqual({ status: 'OK' });
    expect(await contacts(id)).toEqual({ email: null, phone_number: '+14155552671' });
    // Non-null values are applied before nulls, so swapping the only contact works.
    expect((await update({ recipeUserId: id, email: 'b@example.com', phoneNumber: null })).json).toEqual({ status: 'OK' });
    expect(await contacts(id)).toEqual({ email: 'b@example.com', phone_number: null });
    // A number that is not international is refused (see test/normalise/refused-contacts.test.ts).
    const refused = await update({ recipeUserId: id, phoneNumber: ' 4155552671 ' });
    const phoneRule = 'phoneNumber must be in international format with a leading + and country code, e.g. +14155552671';
    expect([refused.statusCode, refused.body]).toEqual([400, `${phoneRule}\n`]);
    expect(await contacts(id)).toEqual({ email: 'b@example.com', phone_number: null });
  });

  it('changes nothing when only the id is given, or the values are the same', async () => {
    const id = await signUp({ email: 'a@example.com' });
    await createCode(t.app, { email: 'a@example.com' });
    const before = await snapshot(t.db);
    expect((await update({ recipeUserId: id })).json).toEqual({ status: 'OK' });
    expect((await update({ recipeUserId: id, email: ' A@example.com' })).json).toEqual({ status: 'OK' });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('answers EMAIL_ALREADY_EXISTS_ERROR / PHONE_NUMBER_ALREADY_EXISTS_ERROR and changes nothing', async () => {
    const id = await signUp({ email: 'a@example.com' });
    await signUp({ email: 'b@example.com' });
    await signUp({ phoneNumber: '+14155552671' });
    await createCode(t.app, { email: 'a@example.com' });
    const before = await snapshot(t.db);
    expect((await update({ recipeUserId: id, email: 'B@example.com' })).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await update({ recipeUserId: id, phoneNumber: '+1 415 555 2671' })).json).toEqual({
      status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR',
    });
    expect((await update({ recipeUserId: id, email: 'b@example.com', phoneNumber: '+14155552671' })).json).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
    expect((await update({ recipeUserId: id, email: 'fresh@example.com', phoneNumber: '+14155552671' })).json).toEqual({
      status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR',
    });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('does not conflict with users of other recipes', async () => {
    const id = await signUp({ email: 'a@example.com' });
    await insertEmailPasswordUser('ep-user', 'shared@example.com');
    expect((await update({ recipeUserId: id, email: 'shared@example.com' })).json).toEqual({ status: 'OK' });
  });

  it('answers UNKNOWN_USER_ID_ERROR for an unknown id or a user of another recipe', async () => {
    await insertEmailPasswordUser('ep-user', 'ep@example.com');
    const before = await snapshot(t.db);
    for (const id of ['nobody', 'ep-user']) {
      expect((await update({ recipeUserId: id, email: 'x@example.com' })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
      expect((await update({ recipeUserId: id, email: null, phoneNumber: null })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
      expect((await call(t.app, 'GET', '/recipe/user', { headers: pl, query: { userId: id } })).json).toEqual({
        status: 'UNKNOWN_USER_ID_ERROR',
      });
    }
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('deletes pending devices for the old and the new values of a changed field, and no others', async () => {
    const id = await signUp({ email: 'old@example.com' });
    for (const contact of [
      { email: 'old@example.com' },
      { email: 'new@example.com' },
      { email: 'other@example.com' },
      { phoneNumber: '+14155552671' },
    ]) {
      await createCode(t.app, contact);
    }
    expect((await update({ recipeUserId: id, email: 'new@example.com' })).json).toEqual({ status: 'OK' });
    expect(await pendingContacts()).toEqual(['+14155552671', 'other@example.com']);
    expect((await update({ recipeUserId: id, phoneNumber: '+14155552671' })).json).toEqual({ status: 'OK' });
    expect(await pendingContacts()).toEqual(['other@example.com']);
  });

  it('finds a user by id (either id), by email and by phone number', async () => {
    const id = await signUp({ phoneNumber: '+14155552671' });
    await update({ recipeUserId: id, email: 'a@example.com' });
    await t.db.pool.query('INSERT INTO user_id_mappings (user_id, external_user_id) VALUES ($1, $2)', [id, 'legacy-7']);
    const replies = [];
    for (const query of [
      { userId: id },
      { userId: 'legacy-7' },
      { email: ' A@EXAMPLE.COM' },
      { phoneNumber: '+1 (415) 555-2671' },
    ] as Record<string, string>[]) {
      replies.push((await call(t.app, 'GET', '/recipe/user', { headers: pl, query })).json);
    }
    for (const reply of replies) expect(reply).toEqual(replies[0]);
    expect(replies[0].user.id).toBe('legacy-7');
    expect(replies[0].user.loginMethods[0]).toEqual({
      tenantIds: ['public'],
      recipeUserId: 'legacy-7',
      verified: false,
      timeJoined: t.clock.nowMs,
      recipeId: 'passwordless',
      email: 'a@example.com',
      phoneNumber: '+14155552671',
    });
  });

  it('answers UNKNOWN_EMAIL_ERROR / UNKNOWN_PHONE_NUMBER_ERROR, ignoring other recipes', async () => {
    await insertEmailPasswordUser('ep-user', 'ep@example.com');
    const get = (query: Record<string, string>) => call(t.app, 'GET', '/recipe/user', { headers: pl, query });
    expect((await get({ email: 'ep@example.com' })).json).toEqual({ status: 'UNKNOWN_EMAIL_ERROR' });
    expect((await get({ phoneNumber: '+14155552671' })).json).toEqual({ status: 'UNKNOWN_PHONE_NUMBER_ERROR' });
  });

  it('uses the legacy user shape before cdi 4.0 and accepts userId there', async () => {
    const id = await signUp({ email: 'a@example.com' });
    expect((await update({ userId: id, phoneNumber: '+14155552671' }, { 'cdi-version': '2.21' })).json).toEqual({ status: 'OK' });
    const reply = await call(t.app, 'GET', '/recipe/user', { headers: { ...pl, 'cdi-version': '2.21' }, query: { userId: id } });
    expect(reply.json).toEqual({
      status: 'OK',
      user: { id, timeJoined: t.clock.nowMs, email: 'a@example.com', phoneNumber: '+14155552671' },
    });
  });
});
