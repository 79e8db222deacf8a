import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import supertokens from 'supertokens-node';
import AccountLinking from 'supertokens-node/recipe/accountlinking/index.js';
import EmailPassword from 'supertokens-node/recipe/emailpassword/index.js';
import ThirdParty from 'supertokens-node/recipe/thirdparty/index.js';
import { useTestApp } from '../helper.js';

// The SDK's AccountLinking recipe functions (AL-13) against a listening core, unchanged.
const apiKey = 'e2e-api-key-with-more-than-20-chars';

describe('supertokens-node v24 account linking against a listening core', () => {
  const t = useTestApp({ api_keys: apiKey });
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    supertokens.init({
      framework: 'express',
      supertokens: { connectionURI: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`, apiKey },
      appInfo: { appName: 'identity-core e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
      recipeList: [EmailPassword.init(), ThirdParty.init(), AccountLinking.init()],
    });
  });

  it('makes a primary user, links a Google login to it, signs in by each, lists it once, and deletes it', async () => {
    const signUp = await EmailPassword.signUp('public', 'alice@example.com', 'testPass123');
    if (signUp.status !== 'OK') throw new Error(signUp.status);
    const passwordId = signUp.user.id;
    const google = await ThirdParty.manuallyCreateOrUpdateUser('public', 'google', '106344558822', 'alice@example.com', true);
    if (google.status !== 'OK') throw new Error(google.status);
    const googleId = google.recipeUserId.getAsString();

    const recipeUserId = supertokens.convertToRecipeUserId(passwordId);
    expect(await AccountLinking.canCreatePrimaryUser(recipeUserId)).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: false });
    const primary = await AccountLinking.createPrimaryUser(recipeUserId);
    expect(primary.status === 'OK' && [primary.wasAlreadyAPrimaryUser, primary.user.isPrimaryUser]).toEqual([false, true]);

    const googleRecipeId = supertokens.convertToRecipeUserId(googleId);
    expect(await AccountLinking.canLinkAccounts(googleRecipeId, passwordId)).toEqual({ status: 'OK', accountsAlreadyLinked: false });
    const linked = await AccountLinking.linkAccounts(googleRecipeId, passwordId);
    expect(linked.status).toBe('OK');
    if (linked.status !== 'OK') return;
    expect([linked.accountsAlreadyLinked, linked.user.id, linked.user.loginMethods.map((m) => m.recipeUserId.getAsString())]).toEqual([
      false,
      passwordId,
      [passwordId, googleId],
    ]);

    const user = await supertokens.getUser(googleId);
    expect([user?.id, user?.isPrimaryUser, user?.emails, user?.thirdParty]).toEqual([
      passwordId,
      true,
      ['alice@example.com'],
      [{ id: 'google', userId: '106344558822' }],
    ]);

    const signIn = await EmailPassword.signIn('public', 'alice@example.com', 'testPass123');
    expect(signIn.status === 'OK' && [signIn.user.id, signIn.recipeUserId.getAsString()]).toEqual([passwordId, passwordId]);
    const again = await ThirdParty.manuallyCreateOrUpdateUser('public', 'google', '106344558822', 'alice@example.com', true);
    expect(again.status === 'OK' && [again.createdNewRecipeUser, again.user.id, again.recipeUserId.getAsString()]).toEqual([
      false,
      passwordId,
      googleId,
    ]);

    const listed = await supertokens.listUsersByAccountInfo('public', { email: 'alice@example.com' });
    expect(listed.map((found) => [found.id, found.loginMethods.length])).toEqual([[passwordId, 2]]);
    expect(await supertokens.getUserCount()).toBe(1);

    expect(await AccountLinking.unlinkAccount(googleRecipeId)).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect(await supertokens.getUserCount()).toBe(2);
    await AccountLinking.linkAccounts(googleRecipeId, passwordId);

    await supertokens.deleteUser(googleId, false);
    expect((await supertokens.getUser(passwordId))?.loginMethods.length).toBe(1);
    await supertokens.deleteUser(passwordId, true);
    expect(await supertokens.getUser(passwordId)).toBeUndefined();
    expect(await supertokens.getUserCount()).toBe(0);
  });
});
