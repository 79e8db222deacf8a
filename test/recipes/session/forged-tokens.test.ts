import { CompactSign } from 'jose';
import { describe, expect, it } from 'vitest';
import { call, expectText, useTestApp } from '../../helper.js';
import { created, decodeJwt, sessionApi } from './support.js';

const encoder = new TextEncoder();
const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('tokens this core did not mint as access tokens are not sessions', () => {
  const t = useTestApp({ access_token_validity: 60, access_token_validity_jitter: 0 });

  const createJwt = (payload: Record<string, unknown>, useStaticSigningKey = false) =>
    call(t.app, 'POST', '/recipe/jwt', {
      body: { algorithm: 'RS256', jwksDomain: 'https://api.example.com', payload, validity: 3600, useStaticSigningKey },
      headers: { 'cdi-version': '5.4' },
    });

  // Signed with the core's own dynamic key, as POST /recipe/jwt signs: the header is all that differs.
  const signWithCoreKey = async (header: Record<string, unknown>, payload: Record<string, unknown>) => {
    const key = await t.app.services.keys.currentDynamicKey();
    return new CompactSign(encoder.encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.kid, ...header })
      .sign(key.privateKey);
  };

  it.each(['sessionHandle', 'refreshTokenHash1', 'parentRefreshTokenHash1', 'antiCsrfToken', 'tId', 'rsub'])(
    'refuses a POST /recipe/jwt payload carrying %s',
    async (claim) => {
      const reply = await createJwt({ sub: 'victim', [claim]: 'x' });
      expect([reply.statusCode, expectText(reply)]).toEqual([
        400,
        `Field name 'payload' contains '${claim}', a claim only access tokens carry`,
      ]);
    },
  );

  it('still signs a payload with sub and the claims of an app', async () => {
    const reply = await createJwt({ sub: 'victim', role: 'admin' });
    expect(reply.json).toEqual({ status: 'OK', jwt: expect.any(String) });
    const { header, payload } = decodeJwt(reply.json.jwt);
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: expect.stringMatching(/^d-\d{13}$/) });
    expect(payload).toEqual({
      iss: 'https://api.example.com',
      sub: 'victim',
      role: 'admin',
      iat: expect.any(Number),
      exp: expect.any(Number),
    });
    expect((await sessionApi(t.app).verify(reply.json.jwt)).json).toEqual({ status: 'TRY_REFRESH_TOKEN', message: 'Invalid JWT' });
  });

  it('verifies as a session only a token with the version header, and each version with its own claims', async () => {
    const api = sessionApi(t.app);
    const real = created(await api.create({ userId: 'victim' }));
    const { payload } = decodeJwt(real.accessToken);
    const versionless = await signWithCoreKey({}, payload);
    expect((await api.verify(versionless)).json).toEqual({ status: 'TRY_REFRESH_TOKEN', message: 'Invalid JWT' });
    expect((await api.verify(versionless, { checkDatabase: true })).json).toEqual({ status: 'TRY_REFRESH_TOKEN', message: 'Invalid JWT' });
    expect((await api.regenerate(versionless, { k: 'v' })).json).toEqual({ status: 'UNAUTHORISED', message: 'Invalid access token' });

    expect((await api.verify(await signWithCoreKey({ version: '5' }, payload))).json).toMatchObject({ status: 'OK' });
    const { tId: _tId, rsub: _rsub, ...v3Payload } = payload;
    expect((await api.verify(await signWithCoreKey({ version: '3' }, v3Payload))).json).toMatchObject({ status: 'OK' });
    expect((await api.verify(await signWithCoreKey({ version: '4' }, v3Payload))).json).toEqual({
      status: 'TRY_REFRESH_TOKEN',
      message: 'Access token does not contain all the information. Maybe the structure has changed? tId',
    });
  });
});

describe('regenerate signs only what it verified', () => {
  const t = useTestApp({ access_token_validity: 60, access_token_validity_jitter: 0 });

  const storedPayload = async (handle: string) =>
    (await t.db.pool.query<{ jwt_user_payload: string }>('SELECT jwt_user_payload FROM session_info WHERE session_handle = $1', [handle]))
      .rows[0].jwt_user_payload;

  it('refuses an unsigned or re-signed token naming another user and a later exp, and changes nothing', async () => {
    const api = sessionApi(t.app);
    const mine = created(await api.create({ userId: 'attacker', userDataInJWT: { role: 'user' } }));
    const { header, payload } = decodeJwt(mine.accessToken);
    const forged = { ...payload, sub: 'victim', rsub: 'victim', exp: 4102444800, role: 'admin' };
    const [, , signature] = mine.accessToken.split('.');

    const unsigned = `${segment({ ...header, alg: 'none' })}.${segment(forged)}.`;
    expect((await api.regenerate(unsigned, { role: 'admin' })).json).toEqual({ status: 'UNAUTHORISED', message: 'Invalid access token' });
    const badSignature = `${segment(header)}.${segment(forged)}.${signature}`;
    expect((await api.regenerate(badSignature, { role: 'admin' })).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'JWT verification failed',
    });
    expect(await storedPayload(mine.handle)).toBe('{"role":"user"}');
  });

  it('refuses a token the core signed for another user than the stored session', async () => {
    const api = sessionApi(t.app);
    const mine = created(await api.create({ userId: 'attacker', userDataInJWT: { role: 'user' } }));
    const { header, payload } = decodeJwt(mine.accessToken);
    const key = await t.app.services.keys.currentDynamicKey();
    const otherUser = await new CompactSign(encoder.encode(JSON.stringify({ ...payload, sub: 'victim', rsub: 'victim' })))
      .setProtectedHeader(header as never)
      .sign(key.privateKey);
    expect((await api.regenerate(otherUser, { role: 'admin' })).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'The access token names another user than its session',
    });
    expect(await storedPayload(mine.handle)).toBe('{"role":"user"}');
  });

  it('regenerates a genuine token with its own exp, expired or not', async () => {
    const api = sessionApi(t.app);
    const mine = created(await api.create({ userId: 'attacker' }));
    const before = decodeJwt(mine.accessToken).payload;
    t.clock.advance(30_000);
    const live = await api.regenerate(mine.accessToken, { k: 'v' });
    expect(live.json.status).toBe('OK');
    const after = decodeJwt(live.json.accessToken.token).payload;
    expect(after).toEqual({ ...before, iat: (before.iat as number) + 30, k: 'v' });
    t.clock.advance(60_000);
    expect((await api.regenerate(live.json.accessToken.token, { k: 'w' })).json).toEqual({
      session: { handle: mine.handle, userId: 'attacker', recipeUserId: 'attacker', userDataInJWT: { k: 'w' }, tenantId: 'public' },
      status: 'OK',
    });
    expect(await storedPayload(mine.handle)).toBe('{"k":"w"}');
  });
});
