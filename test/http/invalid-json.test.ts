import { describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../helper.js';

// A body that does not parse is named by where parsing stopped, on every route that takes a body, and the answer
// never repeats the body (it may hold a password or a hash).
describe('invalid JSON bodies', () => {
  const t = useTestApp();

  const routes: ['POST' | 'PUT', string][] = [
    ['POST', '/recipe/signin'],
    ['POST', '/recipe/signup'],
    ['POST', '/recipe/user/passwordhash/import'],
    ['POST', '/recipe/signinup/code'],
    ['POST', '/recipe/signinup'],
    ['PUT', '/recipe/user'],
    ['POST', '/bulk-import/users'],
    ['POST', '/bulk-import/import'],
    ['POST', '/recipe/userid/map'],
    ['POST', '/recipe/dashboard/signin'],
    ['POST', '/recipe/dashboard/user'],
    ['PUT', '/recipe/dashboard/user'],
  ];
  const bodies = [
    {
      description: 'cut short',
      body: '{"email":"ada@example.com","password":"hunter2-secret',
      message: 'unexpected end of input inside a string at line 1, column 54',
    },
    {
      description: 'an unquoted value on line 3',
      body: '{\n  "email": "ada@example.com",\n  "password": hunter2-secret\n}',
      message: 'unexpected character at line 3, column 15',
    },
    {
      description: 'a trailing comma',
      body: '{"passwordHash":"$2b$10$secretsecret",}',
      message: 'expected a property name in double quotes at line 1, column 39',
    },
  ];

  for (const [method, url] of routes) {
    it.each(bodies)(`${method} ${url}: $description`, async ({ body, message }) => {
      const before = await snapshot(t.db);
      const reply = await call(t.app, method, url, { body, headers: { rid: 'passwordless' } });
      expect([reply.statusCode, reply.body]).toEqual([400, `Invalid Json Input: ${message}\n`]);
      expect(reply.body).not.toMatch(/secret|ada@/);
      expect(await snapshot(t.db)).toEqual(before);
    });
  }

  // GET and DELETE take their input from the query: a body, JSON or not, empty or not, is never read.
  const queryRoutes: ['GET' | 'DELETE', string, number][] = [
    ['GET', '/users/count', 200],
    ['GET', '/recipe/user?userId=nobody', 200],
    ['DELETE', '/recipe/dashboard/session?sessionId=nobody', 200],
    ['DELETE', '/recipe/webauthn/options/remove?webauthnGeneratedOptionsId=nobody', 200],
  ];
  const ignoredBodies = ['', '{', '[1,2]', 'email=a%40example.com', '{"sessionId":"x"}'];
  for (const [method, url, status] of queryRoutes) {
    it.each(ignoredBodies)(`${method} ${url} with the body %j`, async (body) => {
      for (const type of ['application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded']) {
        const reply = await t.app.inject({ method, url, headers: { 'content-type': type }, payload: body });
        expect([reply.statusCode, reply.body], type).toEqual([status, expect.stringMatching(/^\{"status":"[A-Z_]+"/)]);
      }
    });
  }
});
