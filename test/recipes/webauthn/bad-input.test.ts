import { describe, expect, it } from 'vitest';
import { call, expectText, snapshot, useTestApp } from '../../helper.js';
import { SoftAuthenticator } from './authenticator.js';
import { origin, registerOptions, signInOptions, signUp } from './ceremony.js';

const base = { email: 'a@example.com', relyingPartyId: 'example.com', relyingPartyName: 'Example', origin };

describe('passkey routes refuse bad input, naming the field, and write nothing', () => {
  const t = useTestApp();

  it.each([
    ['email not a string', { ...base, email: 5 }, 'email'],
    ['neither email nor token', { ...base, email: undefined }, 'email'],
    ['relyingPartyId missing', { ...base, relyingPartyId: undefined }, 'relyingPartyId'],
    ['relyingPartyName not a string', { ...base, relyingPartyName: [] }, 'relyingPartyName'],
    ['origin missing', { ...base, origin: undefined }, 'origin'],
    ['timeout a string', { ...base, timeout: '60' }, 'timeout'],
    ['userPresence a string', { ...base, userPresence: 'yes' }, 'userPresence'],
    ['supportedAlgorithmIds with text', { ...base, supportedAlgorithmIds: ['ES256'] }, 'supportedAlgorithmIds'],
    ['supportedAlgorithmIDs not an array', { ...base, supportedAlgorithmIDs: -7 }, 'supportedAlgorithmIDs'],
  ])('register options: %s → 400', async (_name, body, field) => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/public/recipe/webauthn/options/register', { body });
    expect([reply.statusCode, expectText(reply)]).toEqual([400, `Field name '${field}' is invalid in JSON input`]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it.each([
    ['a bad email', { email: 'not-an-email' }, { status: 'INVALID_EMAIL_ERROR', err: expect.any(String) }],
    [
      'an unknown userVerification',
      { userVerification: 'always' },
      {
        status: 'INVALID_OPTIONS_ERROR',
        reason: "Invalid value 'always' for userVerification. Must be one of: required, discouraged, preferred",
      },
    ],
    [
      'an unknown attestation',
      { attestation: 'full' },
      {
        status: 'INVALID_OPTIONS_ERROR',
        reason: "Invalid value 'full' for attestation. Must be one of: none, indirect, direct, enterprise",
      },
    ],
    ['a negative timeout', { timeout: -1 }, { status: 'INVALID_OPTIONS_ERROR', reason: 'Timeout must be a positive value' }],
    ['an origin that is no URL', { origin: 'example.com' }, { status: 'INVALID_OPTIONS_ERROR', reason: 'origin has to be a valid URL' }],
    [
      'an origin off the RP ID',
      { origin: 'https://notexample.com' },
      { status: 'INVALID_OPTIONS_ERROR', reason: 'origin does not match relyingPartyId' },
    ],
    [
      'an empty algorithm list',
      { supportedAlgorithmIds: [] },
      { status: 'INVALID_OPTIONS_ERROR', reason: 'supportedAlgorithmIds cannot be empty' },
    ],
    ['an unknown recovery token', { email: undefined, recoverAccountToken: 'nope' }, { status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR' }],
  ])('register options: %s → a named status', async (_name, extra, expected) => {
    const reply = await registerOptions(t.app, 'a@example.com', extra);
    expect([reply.statusCode, reply.json]).toEqual([200, expected]);
  });

  it.each([
    ['webauthnGeneratedOptionsId a number', { webauthnGeneratedOptionsId: 1, credential: {} }, 'webauthnGeneratedOptionsId'],
    ['credential missing', { webauthnGeneratedOptionsId: 'x' }, 'credential'],
    ['credential a string', { webauthnGeneratedOptionsId: 'x', credential: 'abc' }, 'credential'],
  ])('sign-up and sign-in: %s → 400', async (_name, body, field) => {
    for (const path of ['signup', 'signin']) {
      const reply = await call(t.app, 'POST', `/public/recipe/webauthn/${path}`, { body });
      expect([reply.statusCode, expectText(reply)]).toEqual([400, `Field name '${field}' is invalid in JSON input`]);
    }
  });

  it('answers every malformed credential field with INVALID_CREDENTIALS_ERROR naming it, never a 500', async () => {
    const options = (await registerOptions(t.app, 'b@example.com')).json;
    const good = new SoftAuthenticator().register(options, origin);
    const cases: [unknown, string][] = [
      [{ ...good, id: undefined }, 'credential.id is missing'],
      [{ ...good, id: 'a+b/' }, 'credential.id has to be base64url encoded'],
      [{ ...good, id: 'A'.repeat(1400), rawId: 'A'.repeat(1400) }, 'credential.id is longer than 1023 bytes'],
      [{ ...good, rawId: 'other' }, 'credential.rawId must equal credential.id'],
      [{ ...good, type: 'password' }, "credential.type 'password' is not supported, it must be 'public-key'"],
      [{ ...good, response: 'x' }, 'credential.response must be an object'],
      [{ ...good, response: { ...good.response, clientDataJSON: 7 } }, 'credential.response.clientDataJSON must be a string'],
      [{ ...good, response: { ...good.response, attestationObject: undefined } }, 'credential.response.attestationObject is missing'],
      [{ ...good, response: { ...good.response, transports: [1] } }, 'credential.response.transports must be an array of strings'],
    ];
    const before = await snapshot(t.db);
    for (const [credential, reason] of cases) {
      const reply = await call(t.app, 'POST', '/public/recipe/webauthn/signup', {
        body: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential },
      });
      expect([reply.statusCode, reply.json]).toEqual([200, { status: 'INVALID_CREDENTIALS_ERROR', reason }]);
    }
    const garbage = await call(t.app, 'POST', '/public/recipe/webauthn/signup', {
      body: {
        webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
        credential: { ...good, response: { ...good.response, attestationObject: 'AAAA' } },
      },
    });
    expect([garbage.statusCode, garbage.json.status]).toEqual([200, 'INVALID_AUTHENTICATOR_ERROR']);
    const otherId = Buffer.from('another credential').toString('base64url');
    const renamed = await call(t.app, 'POST', '/public/recipe/webauthn/signup', {
      body: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential: { ...good, id: otherId, rawId: otherId } },
    });
    expect(renamed.json).toEqual({
      status: 'INVALID_AUTHENTICATOR_ERROR',
      reason: 'credential.id is not the id of the attested credential',
    });
    expect(await snapshot(t.db)).toEqual(before);

    const authenticator = new SoftAuthenticator();
    await signUp(t.app, authenticator, 'c@example.com');
    const signIn = (await signInOptions(t.app)).json;
    const assertion = authenticator.assert(signIn.challenge, origin, 'example.com');
    for (const [credential, reason] of [
      [
        { ...assertion, response: { ...assertion.response, signature: '***' } },
        'credential.response.signature has to be base64url encoded',
      ],
      [
        { ...assertion, response: { ...assertion.response, authenticatorData: undefined } },
        'credential.response.authenticatorData is missing',
      ],
      [{ ...assertion, response: { ...assertion.response, signature: 'AAAA' } }, undefined],
    ] as const) {
      const reply = await call(t.app, 'POST', '/public/recipe/webauthn/signin', {
        body: { webauthnGeneratedOptionsId: signIn.webauthnGeneratedOptionsId, credential },
      });
      expect([reply.statusCode, reply.json.status]).toEqual([200, 'INVALID_CREDENTIALS_ERROR']);
      if (reason) expect(reply.json.reason).toBe(reason);
    }
  });

  it.each([
    ['GET', '/public/recipe/webauthn/options', {}, 'webauthnGeneratedOptionsId'],
    ['DELETE', '/public/recipe/webauthn/options/remove', {}, 'webauthnGeneratedOptionsId'],
    ['GET', '/recipe/webauthn/user/credential', { recipeUserId: 'u' }, 'webauthnCredentialId'],
    ['GET', '/recipe/webauthn/user/credential/list', {}, 'recipeUserId'],
    ['DELETE', '/recipe/webauthn/user/credential/remove', { webauthnCredentialId: 'c' }, 'recipeUserId'],
    ['GET', '/public/recipe/webauthn/user/recover', {}, 'token'],
  ] as const)('%s %s without a query field → 400 naming it', async (method, url, query, field) => {
    const reply = await call(t.app, method, url, { query });
    expect([reply.statusCode, expectText(reply)]).toEqual([400, `Field name '${field}' is missing in GET request`]);
  });

  it.each([
    ['/public/recipe/webauthn/user/recover/token', { userId: 'u', email: 3 }, 'email'],
    ['/public/recipe/webauthn/user/recover/token/consume', { token: null }, 'token'],
    ['/recipe/webauthn/user/credential/register', { recipeUserId: 'u', webauthnGeneratedOptionsId: 'o', credential: [] }, 'credential'],
  ])('POST %s with a bad field → 400 naming it', async (url, body, field) => {
    const reply = await call(t.app, 'POST', url, { body });
    expect([reply.statusCode, expectText(reply)]).toEqual([400, `Field name '${field}' is invalid in JSON input`]);
  });

  it('PUT email with a bad email → 400 naming it', async () => {
    const reply = await call(t.app, 'PUT', '/public/recipe/webauthn/user/email', { body: { recipeUserId: 'u', email: 'nope' } });
    expect(reply.statusCode).toBe(400);
    expect(expectText(reply)).toMatch(/^email is not a valid email address/);
  });
});

describe('passkey relying parties come from the settings (W-5)', () => {
  const t = useTestApp({
    webauthn_rp_ids: 'example.com, login.example.org',
    webauthn_origins: 'https://example.com,https://login.example.org',
  });

  it('refuses options for an RP ID or an origin the settings do not list, naming the setting', async () => {
    expect((await registerOptions(t.app, 'a@example.com', { relyingPartyId: 'other.com', origin: 'https://other.com' })).json).toEqual({
      status: 'INVALID_OPTIONS_ERROR',
      reason: "relyingPartyId 'other.com' is not one of the relying-party ids in the setting webauthn_rp_ids",
    });
    expect((await signInOptions(t.app, { origin: 'https://app.example.com' })).json).toEqual({
      status: 'INVALID_OPTIONS_ERROR',
      reason: "origin 'https://app.example.com' is not one of the origins in the setting webauthn_origins",
    });
    expect((await registerOptions(t.app, 'a@example.com')).json.status).toBe('OK');
    expect((await signInOptions(t.app, { relyingPartyId: 'login.example.org', origin: 'https://login.example.org' })).json.status).toBe(
      'OK',
    );
  });
});
