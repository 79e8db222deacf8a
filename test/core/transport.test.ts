import { describe, expect, it } from 'vitest';
import { getLargestVersionFromIntersection } from 'supertokens-node/lib/build/utils.js';
import { cdiSupported } from 'supertokens-node/lib/build/version.js';
import { call, useTestApp } from '../helper.js';

const apiKey = 'a-valid-api-key-of-at-least-20=chars';
// Those every route serves (sessions and JWTs from 2.21); 2.7 to 2.20 are still accepted on the other routes.
const listedVersions = ['2.21', '3.0', '3.1', '4.0', '5.0', '5.1', '5.2', '5.3', '5.4', '5.5', '5.6'];

describe('transport', () => {
  const t = useTestApp({ api_keys: `${apiKey}, second-key-also-twenty-chars` });

  const withKey = { 'api-key': apiKey };

  it('answers /hello and / without an API key, as text', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
      for (const url of ['/hello', '/', '/public', '/appid-public/public/hello', '/HELLO/']) {
        const reply = await call(t.app, method, url);
        expect([method, url, reply.statusCode, reply.body]).toEqual([method, url, 200, 'Hello\n']);
      }
    }
  });

  it('lists the versions every route serves on /apiversion, ascending, as JSON with a newline', async () => {
    const reply = await call(t.app, 'GET', '/apiversion', { headers: withKey });
    expect(reply.statusCode).toBe(200);
    expect(reply.body).toBe(`${JSON.stringify({ versions: listedVersions })}\n`);
    expect(reply.contentType).toBe('application/json; charset=UTF-8');
  });

  it('is understood by SDKs: v24 picks 5.4, one speaking up to 2.21 picks 2.21 and its sessions work, an older one finds no version', async () => {
    const { versions } = (await call(t.app, 'GET', '/apiversion', { headers: withKey })).json as { versions: string[] };
    expect(getLargestVersionFromIntersection(versions, cdiSupported)).toBe('5.4');
    const upTo221 = ['2.8', '2.9', '2.10', '2.11', '2.12', '2.13', '2.14', '2.15', '2.16', '2.17', '2.18', '2.19', '2.20', '2.21'];
    expect(getLargestVersionFromIntersection(versions, upTo221)).toBe('2.21');
    expect(getLargestVersionFromIntersection(versions, upTo221.slice(0, -1))).toBeUndefined();
    const session = await call(t.app, 'POST', '/recipe/session', {
      headers: { ...withKey, 'cdi-version': '2.21' },
      body: { userId: 'u1', userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false },
    });
    expect(session.json.status).toBe('OK');
    // What an old SDK would have picked from the full list is refused by the session routes, and still served elsewhere.
    const refused = await call(t.app, 'POST', '/recipe/session', {
      headers: { ...withKey, 'cdi-version': '2.20' },
      body: { userId: 'u1', userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false },
    });
    expect([refused.statusCode, refused.body]).toEqual([400, 'cdi-version 2.20 not supported\n']);
    const signUp = await call(t.app, 'POST', '/recipe/signup', {
      headers: { ...withKey, 'cdi-version': '2.20' },
      body: { email: 'old-sdk@example.com', password: 'password 1' },
    });
    expect(signUp.json.status).toBe('OK');
  });

  it.each([
    ['api-key header', { 'api-key': apiKey }, 200],
    ['api-key header with spaces', { 'api-key': `  ${apiKey} ` }, 200],
    ['second key', { 'api-key': 'second-key-also-twenty-chars' }, 200],
    ['Authorization Bearer', { authorization: `Bearer ${apiKey}` }, 200],
    ['Authorization bearer lower-case', { authorization: `bearer   ${apiKey}` }, 200],
    ['Authorization raw', { authorization: apiKey }, 200],
    ['missing', {}, 401],
    ['wrong', { 'api-key': `${apiKey}x` }, 401],
    ['wrong case', { 'api-key': apiKey.toUpperCase() }, 401],
  ])('checks the API key: %s', async (_name, headers, status) => {
    const reply = await call(t.app, 'GET', '/apiversion', { headers });
    expect(reply.statusCode).toBe(status);
    if (status === 401) expect(reply.body).toBe('Invalid API key\n');
  });

  it.each([
    ['/randomPath', 404, 'Not found'],
    ['/recipe/nothing-here', 404, 'Not found'],
    ['/appid-/hello', 404, 'Not found'],
  ])('answers unknown path %s with 404 and no API-key check', async (url, status, text) => {
    const reply = await call(t.app, 'GET', url);
    expect([reply.statusCode, reply.body, reply.contentType]).toEqual([status, `${text}\n`, 'text/html; charset=UTF-8']);
  });

  it('answers a known path with an unknown method 405, after the API-key check', async () => {
    expect((await call(t.app, 'POST', '/apiversion')).statusCode).toBe(401);
    const reply = await call(t.app, 'POST', '/apiversion', { headers: withKey });
    expect([reply.statusCode, reply.body]).toEqual([405, 'Method not supported\n']);
    expect((await call(t.app, 'PATCH', '/hello')).body).toBe('Method not supported\n');
  });

  it.each([
    ['abc', 'cdi-version header is invalid'],
    ['2.x', 'cdi-version header is invalid'],
    ['1..0', 'cdi-version header is invalid'],
    ['2,7', 'cdi-version header is invalid'],
    ['5.7', 'cdi-version 5.7 not supported'],
    ['6.0', 'cdi-version 6.0 not supported'],
    ['2.6', 'cdi-version 2.6 not supported'],
    ['5.0.0', 'cdi-version 5.0.0 not supported'],
  ])('rejects cdi-version %s on a recipe-style route', async (version, message) => {
    // /apiversion takes any well-formed version up to the maximum, so the membership error needs another route.
    const reply = await call(t.app, 'GET', '/apiversion', { headers: { ...withKey, 'cdi-version': version } });
    if (message.includes('not supported') && !['5.7', '6.0'].includes(version)) {
      expect(reply.statusCode).toBe(200);
    } else {
      expect([reply.statusCode, reply.body.trim()]).toEqual([400, message]);
    }
  });

  it('checks the cdi-version format on /hello too', async () => {
    const reply = await call(t.app, 'GET', '/hello', { headers: { 'cdi-version': 'x' } });
    expect([reply.statusCode, reply.body.trim()]).toEqual([400, 'cdi-version header is invalid']);
    expect((await call(t.app, 'GET', '/hello', { headers: { 'cdi-version': '1.0' } })).statusCode).toBe(200);
  });

  it('handles tenant and app prefixes on an app-specific route', async () => {
    const ok = await call(t.app, 'GET', '/appid-public/public/apiversion', { headers: withKey });
    expect(ok.statusCode).toBe(200);
    const otherTenant = await call(t.app, 'GET', '/tenant1/apiversion', { headers: withKey });
    expect([otherTenant.statusCode, otherTenant.body.trim()]).toEqual([403, 'Only public tenantId can call this app specific API']);
    const oldVersion = await call(t.app, 'GET', '/tenant1/apiversion', { headers: { ...withKey, 'cdi-version': '4.0' } });
    expect(oldVersion.statusCode).toBe(200);
    const veryOld = await call(t.app, 'GET', '/tenant1/apiversion', { headers: { ...withKey, 'cdi-version': '2.21' } });
    expect([veryOld.statusCode, veryOld.body.trim()]).toEqual([404, 'Not found']);
    const otherApp = await call(t.app, 'GET', '/appid-other/apiversion', { headers: withKey });
    expect([otherApp.statusCode, otherApp.body.trim()]).toEqual([
      400,
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, other, public)',
    ]);
  });

  it('answers / with an unknown tenant 404', async () => {
    const reply = await call(t.app, 'GET', '/tenant1');
    expect([reply.statusCode, reply.body.trim()]).toEqual([404, 'Not found']);
  });
});

describe('transport without API keys', () => {
  const t = useTestApp({ base_path: '/Auth/' });

  it('serves every route without a key and honours base_path', async () => {
    expect((await call(t.app, 'GET', '/auth/apiversion')).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/AUTH/public/apiversion', { headers: { 'api-key': 'anything' } })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/auth/hello')).body).toBe('Hello\n');
  });
});

describe('request bodies on core routes', () => {
  const t = useTestApp({ body_limit_bytes: 1024 });

  it('lets /hello ignore any body', async () => {
    const reply = await call(t.app, 'POST', '/hello', { body: '{not json', headers: { 'content-type': 'text/plain' } });
    expect([reply.statusCode, reply.body]).toEqual([200, 'Hello\n']);
  });
});

describe('JSON bodies', () => {
  const t = useTestApp();

  it.each([
    ['an array', '[1,2]'],
    ['a string', '"text"'],
    ['null', 'null'],
    ['empty', ''],
  ])('answers a body that is %s with Invalid Json Input', async (_name, body) => {
    const reply = await call(t.app, 'POST', '/recipe/signin', { body, headers: { 'content-type': 'application/json' } });
    expect([reply.statusCode, reply.body]).toEqual([400, 'Invalid Json Input\n']);
  });

  it('parses JSON whatever the content type says, or without one', async () => {
    const contentTypes: Record<string, string>[] = [
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/x-www-form-urlencoded' },
      {},
    ];
    for (const headers of contentTypes) {
      const reply = await call(t.app, 'POST', '/recipe/signin', { body: '{"email":"nobody@example.com","password":"x"}', headers });
      expect([reply.statusCode, reply.json]).toEqual([200, { status: 'WRONG_CREDENTIALS_ERROR' }]);
    }
  });

  it('names a field of the wrong type, without coercing it', async () => {
    const reply = await call(t.app, 'POST', '/recipe/signin', { body: { email: 12, password: 'x' } });
    expect([reply.statusCode, reply.body]).toEqual([400, `Field name 'email' is invalid in JSON input\n`]);
    const nested = await call(t.app, 'POST', '/recipe/signinup', {
      body: { thirdPartyId: 'google', thirdPartyUserId: '1', email: { id: true } },
    });
    expect([nested.statusCode, nested.body]).toEqual([400, `Field name 'id' is invalid in JSON input\n`]);
  });

  it('rejects an unsupported cdi-version on a recipe route', async () => {
    const reply = await call(t.app, 'POST', '/recipe/signin', {
      body: { email: 'a@b.c', password: 'x' },
      headers: { 'cdi-version': '2.6' },
    });
    expect([reply.statusCode, reply.body]).toEqual([400, 'cdi-version 2.6 not supported\n']);
  });
});
