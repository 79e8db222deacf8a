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
});
