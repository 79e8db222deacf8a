import { beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { call, useTestApp } from '../helper.js';

const apiKey = 'openapi-test-api-key-0123456789';
const text = 'text/html; charset=UTF-8';

// The routes of the wire contract, the migration command's helpers, lazy migration, the document itself and the metrics.
const contractRoutes = [
  'GET /',
  'POST /',
  'PUT /',
  'DELETE /',
  'GET /hello',
  'POST /hello',
  'PUT /hello',
  'DELETE /hello',
  'GET /apiversion',
  'POST /recipe/signinup/code',
  'POST /recipe/signinup/code/consume',
  'POST /recipe/signinup/code/check',
  'POST /recipe/signinup/code/remove',
  'POST /recipe/signinup/codes/remove',
  'GET /recipe/signinup/codes',
  'GET /recipe/user',
  'PUT /recipe/user',
  'POST /recipe/signin',
  'POST /recipe/signup',
  'POST /recipe/user/passwordhash/import',
  'POST /recipe/signinup',
  'GET /recipe/users/by-email',
  'GET /user/id',
  'POST /user/remove',
  'GET /users',
  'GET /users/by-accountinfo',
  'GET /users/count',
  'POST /recipe/userid/map',
  'GET /recipe/userid/map',
  'POST /recipe/userid/map/remove',
  'PUT /recipe/userid/external-user-id-info',
  'POST /bulk-import/users',
  'GET /bulk-import/users',
  'GET /bulk-import/users/count',
  'POST /bulk-import/users/remove',
  'POST /bulk-import/import',
  'GET /bulk-import/core-identity',
  'POST /bulk-import/users/lookup',
  'POST /bulk-import/users/complete',
  'POST /bulk-import/password-hash/check',
  'GET /lazy-migration/status',
  'POST /lazy-migration/verify',
  'GET /openapi.json',
  'GET /metrics',
];

// Every method + path Fastify's router holds, read from its printed tree (a node's label extends its parent's path).
function registeredRoutes(app: FastifyInstance): string[] {
  const found = new Set<string>();
  const pathAtDepth: string[] = [''];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*(?:[├└]── )?)(\S+) \(([A-Z, ]+)\)/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    const path = pathAtDepth[depth - 1] + match[2];
    pathAtDepth[depth] = path;
    for (const method of match[3].split(', ')) found.add(`${method} ${path}`);
  }
  return [...found];
}

let document: any;

const t = useTestApp({ api_keys: apiKey });
beforeAll(async () => {
  const reply = await call(t.app, 'GET', '/openapi.json', { headers: { 'api-key': apiKey } });
  expect([reply.statusCode, reply.contentType]).toEqual([200, 'application/json; charset=UTF-8']);
  document = reply.json;
});

const operations = () =>
  Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })),
  );

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('needs the API key like the other routes', async () => {
    const reply = await call(t.app, 'GET', '/openapi.json');
    expect([reply.statusCode, reply.body]).toEqual([401, 'Invalid API key\n']);
  });

  it("lists exactly the registered routes, the contract's among them", () => {
    const documented = operations()
      .map(({ route }) => route)
      .sort();
    expect(registeredRoutes(t.app).sort()).toEqual(documented);
    // Independently of the router: every route the contract names is there (routes added since are checked above).
    expect(contractRoutes.filter((route) => !documented.includes(route))).toEqual([]);
  });

  it('documents the api-key, cdi-version and rid headers', () => {
    expect(document.components.securitySchemes).toEqual({
      apiKey: { type: 'apiKey', in: 'header', name: 'api-key' },
      bearer: { type: 'http', scheme: 'bearer', description: 'The API key as a Bearer token' },
    });
    for (const { route, operation } of operations()) {
      const parameters: { in: string; name: string }[] = operation.parameters ?? [];
      const headers = parameters.filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name);
      const rid = route.endsWith(' /recipe/user') ? ['rid'] : [];
      expect(headers, route).toEqual(['cdi-version', ...rid]);
      const open = /^[A-Z]+ \/(hello|\.well-known\/jwks\.json)?$/.test(route);
      expect(operation.security, route).toEqual(open ? [] : [{ apiKey: [] }, { bearer: [] }]);
    }
  });

  it('gives every route its plain-text errors and a success answer', () => {
    for (const { route, operation } of operations()) {
      const open = /^[A-Z]+ \/(hello|\.well-known\/jwks\.json)?$/.test(route);
      const statuses = Object.keys(operation.responses).sort();
      const withBody = !route.startsWith('GET ') || /^[A-Z]+ \/(hello)?$/.test(route);
      const mayBeUnavailable = [
        'POST /recipe/signin',
        'POST /lazy-migration/verify',
        'POST /session-bridge/exchange',
        'POST /recipe/recoverycodes/verify',
        'POST /recipe/dashboard/signin',
      ].includes(route);
      const expected = ['200', '400', ...(open ? [] : ['401']), '403', '404', ...(withBody ? ['413'] : []), '500'];
      const mayBeLimited = ['POST /recipe/signin', 'POST /recipe/recoverycodes/verify', 'POST /recipe/dashboard/signin'].includes(route);
      const limited = [...expected.slice(0, -1), '429', '500'];
      expect(statuses, route).toEqual([...(mayBeLimited ? limited : expected), ...(mayBeUnavailable ? ['503'] : [])]);
      for (const status of statuses.filter((code) => code !== '200')) {
        expect(operation.responses[status].content[text], `${route} ${status}`).toEqual({ schema: { type: 'string' } });
      }
    }
  });

  it('describes request bodies and answers from the route schemas', () => {
    const signIn = document.paths['/recipe/signin'].post;
    expect(signIn.requestBody.content['application/json'].schema).toEqual({
      type: 'object',
      allOf: [
        { type: 'object', required: ['email'], properties: { email: { type: 'string' } } },
        { type: 'object', required: ['password'], properties: { password: { type: 'string' } } },
      ],
    });
    const answers = signIn.responses['200'].content['application/json'].schema.anyOf;
    expect(answers.map((answer: any) => answer.properties.status)).toEqual([
      { type: 'string', enum: ['OK'] },
      { type: 'string', enum: ['WRONG_CREDENTIALS_ERROR'] },
    ]);
    // Bulk import answers its 400s as JSON; the pipeline's 400s (a bad cdi-version) stay plain text.
    const enqueue = document.paths['/bulk-import/users'].post.responses['400'].content;
    expect(Object.keys(enqueue).sort()).toEqual(['application/json', text]);
  });

  it('merges the three recipes of /recipe/user into one operation chosen by rid', () => {
    const get = document.paths['/recipe/user'].get;
    const query = get.parameters.filter((parameter: any) => parameter.in === 'query').map((parameter: any) => parameter.name);
    expect(query.sort()).toEqual(['email', 'phoneNumber', 'thirdPartyId', 'thirdPartyUserId', 'userId']);
    const rid = get.parameters.find((parameter: any) => parameter.name === 'rid');
    expect(rid.schema).toEqual({ type: 'string', enum: ['passwordless', 'thirdparty'] });
    expect(document.paths['/recipe/user'].put.requestBody.content['application/json'].schema.anyOf).toHaveLength(2);
  });
});
