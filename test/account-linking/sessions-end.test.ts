import { describe, expect, it } from 'vitest';
import { call, countRows, useTestApp } from '../helper.js';
import { created, sessionApi } from '../recipes/session/support.js';

const missing = { status: 'UNAUTHORISED', message: 'Session missing in db or has expired' };
const ended = { status: 'UNAUTHORISED', message: 'Either the session has ended or has been blacklisted' };

// AL-7 / AL-9: a session names its login method's group; once the login method joins or leaves a group, the
// session is ended, as the reference revokes it. Every cdi version the session routes serve sees the same.
describe('linking and unlinking end the recipe user’s sessions', () => {
  const t = useTestApp({}, { truncateEach: true });
  const signUp = async (email: string) => {
    const reply = await call(t.app, 'POST', '/recipe/signup', { body: { email, password: 'secret-password-1' } });
    return reply.json.user.id as string;
  };
  const link = async (recipeUserId: string, primaryUserId: string) => {
    await call(t.app, 'POST', '/recipe/accountlinking/user/primary', { body: { recipeUserId: primaryUserId } });
    const reply = await call(t.app, 'POST', '/recipe/accountlinking/user/link', { body: { recipeUserId, primaryUserId } });
    expect(reply.json.status).toBe('OK');
    return reply.json;
  };
  const live = async () => (await t.db.pool.query('SELECT user_id FROM session_info ORDER BY user_id')).rows;

  it.each(['2.21', '3.0', '4.0', '5.0', '5.2', '5.4', '5.6'])(
    'at cdi %s a session made before the link is neither refreshed nor verified with checkDatabase after it',
    async (cdi) => {
      const api = sessionApi(t.app, cdi);
      const primary = await signUp('primary@example.com');
      const recipe = await signUp('recipe@example.com');
      const before = created(await api.create({ userId: recipe }));
      const primarys = created(await api.create({ userId: primary }));
      await link(recipe, primary);

      expect((await api.refresh(before.refreshToken)).json).toEqual(missing);
      expect((await api.verify(before.accessToken, { checkDatabase: true })).json).toEqual(ended);
      expect((await api.handlesOf({ userId: recipe })).json).toEqual({ status: 'OK', sessionHandles: [primarys.handle] });
      // The primary user's own session is not the linked login method's: it stays.
      expect((await api.refresh(primarys.refreshToken)).json.status).toBe('OK');
      expect(await live()).toEqual([{ user_id: primary }]);
    },
  );

  it('ends sessions stored under the external id of a mapped recipe user, and nothing when already linked', async () => {
    const api = sessionApi(t.app);
    const primary = await signUp('primary@example.com');
    const recipe = await signUp('recipe@example.com');
    expect(
      (await call(t.app, 'POST', '/recipe/userid/map', { body: { superTokensUserId: recipe, externalUserId: 'old-7' } })).json,
    ).toEqual({
      status: 'OK',
    });
    const underExternal = created(await api.create({ userId: 'old-7' }));
    const underInternal = created(await api.create({ userId: recipe }));
    await link(recipe, primary);
    expect(await countRows(t.db, 'session_info')).toBe(0);
    for (const session of [underExternal, underInternal]) expect((await api.refresh(session.refreshToken)).json).toEqual(missing);

    const after = created(await api.create({ userId: 'old-7' }));
    expect((await link(recipe, primary)).accountsAlreadyLinked).toBe(true);
    expect((await api.refresh(after.refreshToken)).json.status).toBe('OK');
  });

  it.each([
    ['a linked login method', false],
    ['the primary login method of a group of two (removed, its id stays the group id)', true],
  ])('unlinking %s ends its sessions and keeps the others', async (_, unlinkPrimary) => {
    const api = sessionApi(t.app);
    const primary = await signUp('primary@example.com');
    const recipe = await signUp('recipe@example.com');
    await link(recipe, primary);
    const ofRecipe = created(await api.create({ userId: recipe }));
    const ofPrimary = created(await api.create({ userId: primary }));
    const leaving = unlinkPrimary ? ofPrimary : ofRecipe;
    const staying = unlinkPrimary ? ofRecipe : ofPrimary;

    const reply = await call(t.app, 'POST', '/recipe/accountlinking/user/unlink', {
      body: { recipeUserId: unlinkPrimary ? primary : recipe },
    });
    expect(reply.json).toEqual({ status: 'OK', wasRecipeUserDeleted: unlinkPrimary, wasLinked: true });
    expect((await api.refresh(leaving.refreshToken)).json).toEqual(missing);
    expect((await api.verify(leaving.accessToken, { checkDatabase: true })).json).toEqual(ended);
    expect((await api.refresh(staying.refreshToken)).json.status).toBe('OK');
  });

  it('unlinking the only login method of a primary user ends its sessions too, as the reference does', async () => {
    const api = sessionApi(t.app);
    const primary = await signUp('primary@example.com');
    await call(t.app, 'POST', '/recipe/accountlinking/user/primary', { body: { recipeUserId: primary } });
    const session = created(await api.create({ userId: primary }));
    expect((await call(t.app, 'POST', '/recipe/accountlinking/user/unlink', { body: { recipeUserId: primary } })).json).toEqual({
      status: 'OK',
      wasRecipeUserDeleted: false,
      wasLinked: true,
    });
    expect((await api.refresh(session.refreshToken)).json).toEqual(missing);
  });
});
