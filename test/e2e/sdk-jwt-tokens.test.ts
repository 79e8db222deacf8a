import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import supertokens from 'supertokens-node';
import Session from 'supertokens-node/recipe/session/index.js';
import { useTestApp } from '../helper.js';

// The official SDK verifies access tokens itself against the core's JWKS, which also lists the keys that sign
// POST /recipe/jwt tokens, and reads a token without a `version` header as version 3: only the payload can keep
// the two apart (docs/sessions.md).
const apiKey = 'e2e-api-key-with-more-than-20-chars';

describe('supertokens-node never takes a /recipe/jwt token for a session', () => {
  let baseUrl: string;
  const t = useTestApp({ api_keys: apiKey });

  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    supertokens.init({
      framework: 'express',
      supertokens: { connectionURI: baseUrl, apiKey },
      appInfo: { appName: 'identity-core e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
      recipeList: [Session.init()],
    });
  });

  const createJwt = async (payload: Record<string, unknown>, useStaticSigningKey: boolean) => {
    const response = await fetch(`${baseUrl}/recipe/jwt`, {
      method: 'POST',
      headers: { 'api-key': apiKey, 'content-type': 'application/json', 'cdi-version': '5.4' },
      body: JSON.stringify({ algorithm: 'RS256', jwksDomain: 'http://localhost:3001', payload, validity: 3600, useStaticSigningKey }),
    });
    return { status: response.status, text: await response.text() };
  };

  it.each([true, false])('refuses to sign the session claims the SDK requires (static key: %s)', async (useStaticSigningKey) => {
    const session = await Session.createNewSessionWithoutRequestResponse('public', supertokens.convertToRecipeUserId('victim'));
    const claims = session.getAccessTokenPayload();
    expect(await createJwt(claims, useStaticSigningKey)).toEqual({
      status: 400,
      text: "Field name 'payload' contains 'sessionHandle', a claim only access tokens carry\n",
    });
    const { sessionHandle: _handle, ...withoutHandle } = claims;
    expect(await createJwt(withoutHandle, useStaticSigningKey)).toEqual({
      status: 400,
      text: "Field name 'payload' contains 'refreshTokenHash1', a claim only access tokens carry\n",
    });
  });

  it('rejects, through its own verification, what /recipe/jwt still signs', async () => {
    const signed = await createJwt({ sub: 'victim', role: 'admin' }, false);
    expect(signed.status).toBe(200);
    const { jwt } = JSON.parse(signed.text) as { jwt: string };
    // Its structure check wants sessionHandle and refreshTokenHash1 in every version from 3 on.
    for (const checkDatabase of [false, true]) {
      await expect(Session.getSessionWithoutRequestResponse(jwt, undefined, { checkDatabase })).rejects.toMatchObject({
        type: 'UNAUTHORISED',
        message: 'Token parsing failed',
      });
    }
  });
});
