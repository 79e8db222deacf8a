import { describe, expect, it } from 'vitest';
import { call, countRows, truncateAll, useTestApp } from '../../helper.js';
import { SoftAuthenticator } from './authenticator.js';
import { cdi, origin, registerOptions, rpId, signIn, signInOptions, signUp } from './ceremony.js';

const uuid = expect.stringMatching(/^[0-9a-f-]{36}$/);

describe('passkey sign-up and sign-in (contract-webauthn W-1, W-2)', () => {
  const t = useTestApp();

  const credentialsOf = async () =>
    (
      await t.db.pool.query(
        'SELECT rp_id, credential_id, user_id, counter::int, transports, aaguid, user_handle FROM webauthn_credentials ORDER BY created_at',
      )
    ).rows;

  it.each([
    ['ES256', 'none'],
    ['ES256', 'packed'],
    ['RS256', 'none'],
    ['RS256', 'packed'],
  ] as const)('signs up with a %s key and %s attestation, then signs in with it', async (alg, attestation) => {
    await truncateAll(t.db);
    const authenticator = new SoftAuthenticator({ alg, attestation });
    const reply = await signUp(t.app, authenticator, 'Alice@Example.com');
    expect(reply.statusCode).toBe(200);
    const userId = reply.json.user.id;
    expect(reply.json).toEqual({
      status: 'OK',
      user: {
        id: userId,
        isPrimaryUser: false,
        tenantIds: ['public'],
        timeJoined: t.clock.now(),
        emails: ['alice@example.com'],
        phoneNumbers: [],
        thirdParty: [],
        webauthn: { credentialIds: [authenticator.id] },
        loginMethods: [
          {
            tenantIds: ['public'],
            recipeUserId: userId,
            verified: false,
            timeJoined: t.clock.now(),
            recipeId: 'webauthn',
            email: 'alice@example.com',
            webauthn: { credentialIds: [authenticator.id] },
          },
        ],
      },
      webauthnCredentialId: authenticator.id,
      relyingPartyId: rpId,
      relyingPartyName: 'Example',
      recipeUserId: userId,
    });
    expect(userId).toEqual(uuid);
    expect(await credentialsOf()).toEqual([
      {
        rp_id: rpId,
        credential_id: authenticator.id,
        user_id: userId,
        counter: 1,
        transports: ['internal'],
        aaguid: null,
        user_handle: null,
      },
    ]);

    const signedIn = await signIn(t.app, authenticator);
    expect(signedIn.json).toEqual({ status: 'OK', user: reply.json.user, recipeUserId: userId });
    expect((await credentialsOf())[0].counter).toBe(2);
  });

  it('finds the owner of a credential by account info, and shows the user by id', async () => {
    await truncateAll(t.db);
    const authenticator = new SoftAuthenticator();
    const { user } = (await signUp(t.app, authenticator, 'bob@example.com')).json;
    const found = await call(t.app, 'GET', '/public/users/by-accountinfo', {
      query: { webauthnCredentialId: authenticator.id, doUnionOfAccountInfo: 'false' },
      headers: cdi('5.4'),
    });
    expect(found.json).toEqual({ status: 'OK', users: [user] });
    const byId = await call(t.app, 'GET', '/user/id', { query: { userId: user.id }, headers: cdi('5.4') });
    expect(byId.json).toEqual({ status: 'OK', user });
    const none = await call(t.app, 'GET', '/public/users/by-accountinfo', {
      query: { webauthnCredentialId: 'nope', doUnionOfAccountInfo: 'false' },
      headers: cdi('5.4'),
    });
    expect(none.json).toEqual({ status: 'OK', users: [] });
  });

  it('refuses a second sign-up with the same email', async () => {
    await truncateAll(t.db);
    await signUp(t.app, new SoftAuthenticator(), 'carol@example.com');
    expect((await signUp(t.app, new SoftAuthenticator(), 'carol@example.com')).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect(await countRows(t.db, 'webauthn_credentials')).toBe(1);
  });

  it('at cdi 5.4 lets one assertion verify twice under the same options (the SDK does), and no third time', async () => {
    await truncateAll(t.db);
    const authenticator = new SoftAuthenticator();
    await signUp(t.app, authenticator, 'dave@example.com');
    const options = (await signInOptions(t.app)).json;
    const credential = authenticator.assert(options.challenge, origin, rpId);
    const body = { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential };
    const post = () => call(t.app, 'POST', '/public/recipe/webauthn/signin', { body, headers: cdi('5.4') });
    expect((await post()).json.status).toBe('OK');
    const stored = await call(t.app, 'GET', '/public/recipe/webauthn/options', {
      query: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId },
      headers: cdi('5.4'),
    });
    expect(stored.json.status).toBe('OK');
    expect((await post()).json.status).toBe('OK');
    expect((await post()).json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
  });

  it('from cdi 5.5 spends the options on the first success: a replay is OPTIONS_NOT_FOUND_ERROR', async () => {
    await truncateAll(t.db);
    const authenticator = new SoftAuthenticator();
    await signUp(t.app, authenticator, 'erin@example.com', '5.5');
    const options = (await signInOptions(t.app, {}, '5.5')).json;
    const credential = authenticator.assert(options.challenge, origin, rpId);
    const body = { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential };
    const post = () => call(t.app, 'POST', '/public/recipe/webauthn/signin', { body, headers: cdi('5.5') });
    expect((await post()).json.status).toBe('OK');
    expect((await post()).json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
    // The sign-up at 5.5 spent its options too.
    expect(await countRows(t.db, 'webauthn_options')).toBe(0);
  });

  it('lets one of many simultaneous verifications of one assertion through at cdi 5.5, and two below it', async () => {
    await truncateAll(t.db);
    const authenticator = new SoftAuthenticator();
    await signUp(t.app, authenticator, 'fay@example.com', '5.5');
    for (const [version, allowed] of [
      ['5.5', 1],
      ['5.4', 2],
    ] as const) {
      const options = (await signInOptions(t.app, {}, version)).json;
      const credential = authenticator.assert(options.challenge, origin, rpId);
      const body = { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential };
      const replies = await Promise.all(
        Array.from({ length: 5 }, () => call(t.app, 'POST', '/public/recipe/webauthn/signin', { body, headers: cdi(version) })),
      );
      const statuses = replies.map((reply) => reply.json.status as string).sort();
      expect(statuses).toEqual([...Array(allowed).fill('OK'), ...Array(5 - allowed).fill('OPTIONS_NOT_FOUND_ERROR')].sort());
    }
    expect(await countRows(t.db, 'webauthn_options')).toBe(0);
  });

  it('refuses a counter not above the stored one as a possible clone, and accepts a synced passkey that always sends 0', async () => {
    await truncateAll(t.db);
    const authenticator = new SoftAuthenticator();
    await signUp(t.app, authenticator, 'frank@example.com');
    await signIn(t.app, authenticator);
    const options = (await signInOptions(t.app)).json;
    const credential = authenticator.assert(options.challenge, origin, rpId, 1);
    const reply = await call(t.app, 'POST', '/public/recipe/webauthn/signin', {
      body: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential },
      headers: cdi('5.4'),
    });
    expect(reply.json).toEqual({
      status: 'INVALID_CREDENTIALS_ERROR',
      reason: 'signature counter 1 is not above the stored 2: possibly a cloned authenticator',
    });

    const synced = new SoftAuthenticator({ counterStep: 0 });
    await signUp(t.app, synced, 'grace@example.com');
    expect((await signIn(t.app, synced)).json.status).toBe('OK');
    expect((await signIn(t.app, synced)).json.status).toBe('OK');
  });

  it('refuses a wrong origin, a wrong RP ID, expired options and an unknown credential with named statuses', async () => {
    await truncateAll(t.db);
    const authenticator = new SoftAuthenticator();
    await signUp(t.app, authenticator, 'heidi@example.com');
    const attempt = async (make: (challenge: string) => unknown, advanceMs = 0) => {
      const options = (await signInOptions(t.app)).json;
      t.clock.advance(advanceMs);
      const reply = await call(t.app, 'POST', '/public/recipe/webauthn/signin', {
        body: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential: make(options.challenge) },
        headers: cdi('5.4'),
      });
      return reply.json;
    };
    expect(await attempt((c) => authenticator.assert(c, 'https://evil.example.net', rpId))).toEqual({
      status: 'INVALID_CREDENTIALS_ERROR',
      reason: 'Unexpected authentication response origin "https://evil.example.net", expected "https://example.com"',
    });
    expect((await attempt((c) => authenticator.assert(c, origin, 'evil.example.net'))).reason).toMatch(/RP ID/i);
    expect(await attempt((c) => authenticator.assert(c, origin, rpId), 6001)).toEqual({
      status: 'INVALID_OPTIONS_ERROR',
      reason: 'Options expired',
    });
    expect(await attempt((c) => new SoftAuthenticator().assert(c, origin, rpId))).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    const reply = await call(t.app, 'POST', '/public/recipe/webauthn/signin', {
      body: { webauthnGeneratedOptionsId: 'no-such-options', credential: authenticator.assert('x', origin, rpId) },
    });
    expect(reply.json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
  });

  it('refuses a registration under sign-in options, and one signed for another origin', async () => {
    await truncateAll(t.db);
    const options = (await registerOptions(t.app, 'ivan@example.com')).json;
    const credential = new SoftAuthenticator().register(options, 'https://other.example.org');
    const reply = await call(t.app, 'POST', '/public/recipe/webauthn/signup', {
      body: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential },
    });
    expect(reply.json).toEqual({
      status: 'INVALID_AUTHENTICATOR_ERROR',
      reason: 'Unexpected registration response origin "https://other.example.org", expected "https://example.com"',
    });
    const signInOnly = (await signInOptions(t.app)).json;
    const second = await call(t.app, 'POST', '/public/recipe/webauthn/signup', {
      body: {
        webauthnGeneratedOptionsId: signInOnly.webauthnGeneratedOptionsId,
        credential: new SoftAuthenticator().register(options, origin),
      },
    });
    expect(second.json).toEqual({ status: 'INVALID_OPTIONS_ERROR', reason: 'the options were made for a sign-in, not a registration' });
    expect(await countRows(t.db, 'users')).toBe(0);
  });
});
