import { describe, expect, it } from 'vitest';
import { call, countRows, truncateAll, useTestApp } from '../../helper.js';
import { SoftAuthenticator } from './authenticator.js';
import { cdi, origin, registerOptions, signIn, signUp } from './ceremony.js';

describe('passkey credentials, recovery and email (contract-webauthn W-1)', () => {
  const t = useTestApp();
  const json = { 'content-type': 'application/json', ...cdi('5.4') };

  async function addCredential(recipeUserId: string, email: string, authenticator: SoftAuthenticator) {
    const options = (await registerOptions(t.app, email)).json;
    return call(t.app, 'POST', '/recipe/webauthn/user/credential/register', {
      body: {
        recipeUserId,
        webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
        credential: authenticator.register(options, origin),
      },
      headers: cdi('5.4'),
    });
  }

  it('adds, lists, reads and removes credentials; DELETE takes the SDK empty JSON body', async () => {
    await truncateAll(t.db);
    const first = new SoftAuthenticator();
    const { recipeUserId } = (await signUp(t.app, first, 'alice@example.com')).json;
    const second = new SoftAuthenticator({ alg: 'RS256', attestation: 'packed' });
    t.clock.advance(1000);
    expect((await addCredential(recipeUserId, 'alice@example.com', second)).json).toEqual({
      status: 'OK',
      webauthnCredentialId: second.id,
      recipeUserId,
      email: 'alice@example.com',
      relyingPartyId: 'example.com',
      relyingPartyName: 'Example',
    });
    expect((await addCredential(recipeUserId, 'alice@example.com', second)).json).toEqual({ status: 'CREDENTIAL_ALREADY_EXISTS_ERROR' });
    expect((await addCredential('no-such-user', 'alice@example.com', new SoftAuthenticator())).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });

    const list = await call(t.app, 'GET', '/recipe/webauthn/user/credential/list', { query: { recipeUserId }, headers: cdi('5.4') });
    const created = t.clock.now();
    expect(list.json).toEqual({
      status: 'OK',
      credentials: [
        { webauthnCredentialId: first.id, recipeUserId, relyingPartyId: 'example.com', createdAt: created - 1000 },
        { webauthnCredentialId: second.id, recipeUserId, relyingPartyId: 'example.com', createdAt: created },
      ],
    });
    const one = await call(t.app, 'GET', '/recipe/webauthn/user/credential', {
      query: { recipeUserId, webauthnCredentialId: second.id },
      headers: cdi('5.4'),
    });
    expect(one.json).toEqual({
      status: 'OK',
      webauthnCredentialId: second.id,
      recipeUserId,
      relyingPartyId: 'example.com',
      createdAt: created,
      updatedAt: created,
    });
    expect((await signIn(t.app, second)).json.status).toBe('OK');

    const remove = (id: string) =>
      t.app.inject({
        method: 'DELETE',
        url: `/recipe/webauthn/user/credential/remove?recipeUserId=${recipeUserId}&webauthnCredentialId=${id}`,
        headers: json,
      });
    const removed = await remove(first.id);
    expect([removed.statusCode, removed.json()]).toEqual([200, { status: 'OK' }]);
    expect((await remove(first.id)).json()).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    expect((await signIn(t.app, first)).json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    const user = await call(t.app, 'GET', '/user/id', { query: { userId: recipeUserId }, headers: cdi('5.4') });
    expect(user.json.user.webauthn).toEqual({ credentialIds: [second.id] });

    const options = (await registerOptions(t.app, 'x@example.com')).json;
    const removeOptions = await t.app.inject({
      method: 'DELETE',
      url: `/public/recipe/webauthn/options/remove?webauthnGeneratedOptionsId=${options.webauthnGeneratedOptionsId}`,
      headers: json,
    });
    expect(removeOptions.json()).toEqual({ status: 'OK' });
    const gone = await call(t.app, 'GET', '/public/recipe/webauthn/options', {
      query: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId },
    });
    expect(gone.json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
  });

  it('answers the stored options, with both spellings of the algorithm list read', async () => {
    await truncateAll(t.db);
    const ids = await registerOptions(t.app, 'bob@example.com', {
      supportedAlgorithmIds: [-7],
      timeout: 60000,
      userVerification: 'required',
    });
    expect(ids.json.pubKeyCredParams).toEqual([{ alg: -7, type: 'public-key' }]);
    const upper = await registerOptions(t.app, 'bob@example.com', { supportedAlgorithmIDs: [-257] });
    expect(upper.json.pubKeyCredParams).toEqual([{ alg: -257, type: 'public-key' }]);
    const stored = await call(t.app, 'GET', '/public/recipe/webauthn/options', {
      query: { webauthnGeneratedOptionsId: ids.json.webauthnGeneratedOptionsId },
    });
    expect(stored.json).toEqual({
      status: 'OK',
      webauthnGeneratedOptionsId: ids.json.webauthnGeneratedOptionsId,
      relyingPartyId: 'example.com',
      relyingPartyName: 'Example',
      challenge: ids.json.challenge,
      timeout: 60000,
      origin,
      email: 'bob@example.com',
      createdAt: t.clock.now(),
      expiresAt: t.clock.now() + 60000,
      userVerification: 'required',
      userPresence: false,
    });
    const rs256Only = new SoftAuthenticator({ alg: 'ES256' });
    const refused = await call(t.app, 'POST', '/public/recipe/webauthn/signup', {
      body: { webauthnGeneratedOptionsId: upper.json.webauthnGeneratedOptionsId, credential: rs256Only.register(upper.json, origin) },
    });
    expect(refused.json.status).toBe('INVALID_AUTHENTICATOR_ERROR');
    expect(refused.json.reason).toMatch(/-7/);
  });

  it('recovers an account: a token for the user and email, read, spent once; a new passkey is registered with it', async () => {
    await truncateAll(t.db);
    const lost = new SoftAuthenticator();
    const { recipeUserId } = (await signUp(t.app, lost, 'carol@example.com')).json;
    const make = await call(t.app, 'POST', '/public/recipe/webauthn/user/recover/token', {
      body: { userId: recipeUserId, email: 'carol@example.com' },
    });
    expect(make.json).toEqual({ status: 'OK', token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const { token } = make.json;
    const stored = await t.db.pool.query('SELECT token_hash FROM webauthn_recover_tokens');
    expect(stored.rows[0].token_hash).not.toEqual(Buffer.from(token));

    const read = await call(t.app, 'GET', '/public/recipe/webauthn/user/recover', { query: { token }, headers: cdi('5.4') });
    expect(read.json).toMatchObject({ status: 'OK', email: 'carol@example.com', recipeUserId });
    expect(read.json.user.id).toBe(recipeUserId);

    const options = await registerOptions(t.app, 'ignored@example.com', { email: undefined, recoverAccountToken: token });
    expect(options.json.email).toBe('carol@example.com');
    const replacement = new SoftAuthenticator();
    const added = await call(t.app, 'POST', '/recipe/webauthn/user/credential/register', {
      body: {
        recipeUserId,
        webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId,
        credential: replacement.register(options.json, origin),
      },
    });
    expect(added.json.status).toBe('OK');
    const consume = () => call(t.app, 'POST', '/public/recipe/webauthn/user/recover/token/consume', { body: { token } });
    expect((await consume()).json).toEqual({ status: 'OK', userId: recipeUserId, email: 'carol@example.com' });
    expect((await consume()).json).toEqual({ status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR' });
    expect((await signIn(t.app, replacement)).json.status).toBe('OK');

    expect(
      (await call(t.app, 'POST', '/public/recipe/webauthn/user/recover/token', { body: { userId: 'nobody', email: 'a@b.co' } })).json,
    ).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
    const expiring = (
      await call(t.app, 'POST', '/public/recipe/webauthn/user/recover/token', {
        body: { userId: recipeUserId, email: 'carol@example.com' },
      })
    ).json.token;
    t.clock.advance(3600001);
    expect((await call(t.app, 'GET', '/public/recipe/webauthn/user/recover', { query: { token: expiring } })).json).toEqual({
      status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR',
    });
  });

  it('updates the email: the old recovery tokens die, a taken email is refused', async () => {
    await truncateAll(t.db);
    const { recipeUserId } = (await signUp(t.app, new SoftAuthenticator(), 'dave@example.com')).json;
    await signUp(t.app, new SoftAuthenticator(), 'erin@example.com');
    const token = (
      await call(t.app, 'POST', '/public/recipe/webauthn/user/recover/token', { body: { userId: recipeUserId, email: 'dave@example.com' } })
    ).json.token;
    const put = (email: string, id = recipeUserId) =>
      call(t.app, 'PUT', '/public/recipe/webauthn/user/email', { body: { recipeUserId: id, email } });
    expect((await put('erin@example.com')).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await put('Dave2@Example.com')).json).toEqual({ status: 'OK' });
    expect((await put('x@example.com', 'nobody')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    const user = await call(t.app, 'GET', '/user/id', { query: { userId: recipeUserId } });
    expect(user.json.user.emails).toEqual(['dave2@example.com']);
    expect((await call(t.app, 'POST', '/public/recipe/webauthn/user/recover/token/consume', { body: { token } })).json).toEqual({
      status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR',
    });
  });

  it('removing the user removes its credentials and recovery tokens', async () => {
    await truncateAll(t.db);
    const authenticator = new SoftAuthenticator();
    const { recipeUserId } = (await signUp(t.app, authenticator, 'frank@example.com')).json;
    await call(t.app, 'POST', '/public/recipe/webauthn/user/recover/token', { body: { userId: recipeUserId, email: 'frank@example.com' } });
    expect((await call(t.app, 'POST', '/user/remove', { body: { userId: recipeUserId } })).json).toEqual({ status: 'OK' });
    expect(await countRows(t.db, 'webauthn_credentials')).toBe(0);
    expect(await countRows(t.db, 'webauthn_recover_tokens')).toBe(0);
    expect((await signIn(t.app, authenticator)).json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
  });
});
