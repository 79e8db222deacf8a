import { beforeAll, describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../../helper.js';
import { consumeWithLink, createCode, type IssuedCode } from './flow-helpers.js';

// Every 400 of contract §5, with its exact message, and proof that the request wrote nothing.
describe('passwordless bad input', () => {
  let code: IssuedCode;
  let userId: string;
  let before: Awaited<ReturnType<typeof snapshot>>;

  const t = useTestApp();
  beforeAll(async () => {
    const user = await consumeWithLink(t.app, await createCode(t.app, { email: 'user@example.com' }));
    userId = user.json.user.id;
    code = await createCode(t.app, { email: 'pending@example.com' });
    before = await snapshot(t.db);
  });

  type Case = [
    string,
    'GET' | 'POST' | 'PUT',
    string,
    () => { body?: unknown; query?: Record<string, string>; headers?: Record<string, string> },
    string,
  ];
  const pl = { rid: 'passwordless' };
  const invalidJson = 'Invalid Json Input';

  const cases: Case[] = [
    [
      'create: nothing',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: {} }),
      'Please provide exactly one of email, phoneNumber or deviceId',
    ],
    [
      'create: email and phone',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: { email: 'a@b.c', phoneNumber: '+14155552671' } }),
      'Please provide exactly one of email, phoneNumber or deviceId',
    ],
    [
      'create: email and deviceId',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: { email: 'a@b.c', deviceId: code.deviceId } }),
      'Please provide exactly one of email, phoneNumber or deviceId',
    ],
    [
      'create: only userInputCode',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: { userInputCode: '123' } }),
      'Please provide exactly one of email, phoneNumber or deviceId',
    ],
    [
      'create: null email',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: { email: null } }),
      "Field name 'email' is invalid in JSON input",
    ],
    [
      'create: numeric phone',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: { phoneNumber: 4155552671 } }),
      "Field name 'phoneNumber' is invalid in JSON input",
    ],
    [
      'create: null deviceId',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: { deviceId: null } }),
      "Field name 'deviceId' is invalid in JSON input",
    ],
    [
      'create: null userInputCode',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: { email: 'a@b.c', userInputCode: null } }),
      "Field name 'userInputCode' is invalid in JSON input",
    ],
    [
      'create: numeric userInputCode',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: { email: 'a@b.c', userInputCode: 123456 } }),
      "Field name 'userInputCode' is invalid in JSON input",
    ],
    [
      'create: empty userInputCode',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: { email: 'a@b.c', userInputCode: '' } }),
      'userInputCode cannot be an empty string.',
    ],
    [
      'create: a phone number as deviceId',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: { deviceId: '+442071838750' } }),
      'Input encoding error in deviceId',
    ],
    [
      'create: URL-safe deviceId',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: { deviceId: code.deviceId.replace(/[A-Za-z]/, '-') } }),
      'Input encoding error in deviceId',
    ],
    [
      'create: not JSON',
      'POST',
      '/recipe/signinup/code',
      () => ({ body: 'email=a@b.c' }),
      `${invalidJson}: unexpected character at line 1, column 1`,
    ],
    ['create: a JSON array', 'POST', '/recipe/signinup/code', () => ({ body: '[]' }), 'Invalid Json Input'],
    [
      'create: other tenant',
      'POST',
      '/t1/recipe/signinup/code',
      () => ({ body: { email: 'a@b.c' } }),
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, t1)',
    ],
    [
      'create: other tenant, input checked first',
      'POST',
      '/t1/recipe/signinup/code',
      () => ({ body: {} }),
      'Please provide exactly one of email, phoneNumber or deviceId',
    ],

    [
      'consume: no preAuthSessionId',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { linkCode: code.linkCode } }),
      "Field name 'preAuthSessionId' is invalid in JSON input",
    ],
    [
      'consume: null preAuthSessionId',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: null, linkCode: code.linkCode } }),
      "Field name 'preAuthSessionId' is invalid in JSON input",
    ],
    [
      'consume: neither form',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId } }),
      'Please provide exactly one of linkCode or deviceId+userInputCode',
    ],
    [
      'consume: both forms',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({
        body: {
          preAuthSessionId: code.preAuthSessionId,
          linkCode: code.linkCode,
          deviceId: code.deviceId,
          userInputCode: code.userInputCode,
        },
      }),
      'Please provide exactly one of linkCode or deviceId+userInputCode',
    ],
    [
      'consume: linkCode and userInputCode',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode, userInputCode: '1' } }),
      'Please provide exactly one of linkCode or deviceId+userInputCode',
    ],
    [
      'consume: null linkCode with deviceId',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, linkCode: null, deviceId: code.deviceId } }),
      'Please provide exactly one of linkCode or deviceId+userInputCode',
    ],
    [
      'consume: deviceId alone',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, deviceId: code.deviceId } }),
      'Please provide exactly one of linkCode or deviceId+userInputCode',
    ],
    [
      'consume: userInputCode alone',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, userInputCode: '1' } }),
      'Please provide exactly one of linkCode or deviceId+userInputCode',
    ],
    [
      'consume: null linkCode',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, linkCode: null } }),
      "Field name 'linkCode' is invalid in JSON input",
    ],
    [
      'consume: numeric linkCode',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, linkCode: 42 } }),
      "Field name 'linkCode' is invalid in JSON input",
    ],
    [
      'consume: numeric deviceId',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, deviceId: 42, userInputCode: '1' } }),
      "Field name 'deviceId' is invalid in JSON input",
    ],
    [
      'consume: null userInputCode',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, deviceId: code.deviceId, userInputCode: null } }),
      "Field name 'userInputCode' is invalid in JSON input",
    ],
    [
      'consume: linkCode##',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, linkCode: `${code.linkCode}##` } }),
      'Input encoding error in linkCode',
    ],
    [
      'consume: standard-alphabet linkCode',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, linkCode: '+/+/' } }),
      'Input encoding error in linkCode',
    ],
    [
      'consume: phone number as deviceId',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, deviceId: '+442071838750', userInputCode: '1' } }),
      'Input encoding error in deviceId',
    ],
    [
      'consume: link code of another session',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: 'cs1uhCLEB_ttCYaQ8RMLfe1-wvf14dML2dUh8BU2N5M', linkCode: code.linkCode } }),
      "preAuthSessionId and deviceId doesn't match",
    ],
    [
      'consume: deviceId of another session',
      'POST',
      '/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: 'cs1uhCLEB_ttCYaQ8RMLfe1-wvf14dML2dUh8BU2N5M', deviceId: code.deviceId, userInputCode: '000' } }),
      "preAuthSessionId and deviceId doesn't match",
    ],
    [
      'consume: other tenant',
      'POST',
      '/t1/recipe/signinup/code/consume',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, linkCode: '##' } }),
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, t1)',
    ],
    [
      'check: neither form',
      'POST',
      '/recipe/signinup/code/check',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId } }),
      'Please provide exactly one of linkCode or deviceId+userInputCode',
    ],
    [
      'check: linkCode##',
      'POST',
      '/recipe/signinup/code/check',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId, linkCode: `${code.linkCode}##` } }),
      'Input encoding error in linkCode',
    ],
    [
      'check: deviceId of another session',
      'POST',
      '/recipe/signinup/code/check',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId.slice(1), deviceId: code.deviceId, userInputCode: '000' } }),
      "preAuthSessionId and deviceId doesn't match",
    ],

    [
      'codes: nothing',
      'GET',
      '/recipe/signinup/codes',
      () => ({}),
      'Please provide exactly one of email, phoneNumber, deviceId or preAuthSessionId',
    ],
    [
      'codes: email and preAuthSessionId',
      'GET',
      '/recipe/signinup/codes',
      () => ({ query: { email: 'a@b.c', preAuthSessionId: code.preAuthSessionId } }),
      'Please provide exactly one of email, phoneNumber, deviceId or preAuthSessionId',
    ],
    [
      'codes: bad deviceId',
      'GET',
      '/recipe/signinup/codes',
      () => ({ query: { deviceId: '+442071838750' } }),
      'Input encoding error in deviceId',
    ],
    [
      'codes: other tenant',
      'GET',
      '/t1/recipe/signinup/codes',
      () => ({ query: { email: 'a@b.c' } }),
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, t1)',
    ],

    [
      'code/remove: neither',
      'POST',
      '/recipe/signinup/code/remove',
      () => ({ body: {} }),
      "Please provide either 'codeId' or 'preAuthSessionId'",
    ],
    [
      'code/remove: both',
      'POST',
      '/recipe/signinup/code/remove',
      () => ({ body: { codeId: code.codeId, preAuthSessionId: code.preAuthSessionId } }),
      "Please provide only one of 'codeId' or 'preAuthSessionId'",
    ],
    [
      'code/remove: null codeId',
      'POST',
      '/recipe/signinup/code/remove',
      () => ({ body: { codeId: null } }),
      "Field name 'codeId' is invalid in JSON input",
    ],
    [
      'code/remove: numeric preAuthSessionId',
      'POST',
      '/recipe/signinup/code/remove',
      () => ({ body: { preAuthSessionId: 1 } }),
      "Field name 'preAuthSessionId' is invalid in JSON input",
    ],
    [
      'code/remove: cdi 4.0 without codeId',
      'POST',
      '/recipe/signinup/code/remove',
      () => ({ body: { preAuthSessionId: code.preAuthSessionId }, headers: { 'cdi-version': '4.0' } }),
      "Field name 'codeId' is invalid in JSON input",
    ],
    [
      'codes/remove: neither',
      'POST',
      '/recipe/signinup/codes/remove',
      () => ({ body: {} }),
      'Please provide exactly one of email or phoneNumber',
    ],
    [
      'codes/remove: both',
      'POST',
      '/recipe/signinup/codes/remove',
      () => ({ body: { email: 'pending@example.com', phoneNumber: '+1' } }),
      'Please provide exactly one of email or phoneNumber',
    ],
    [
      'codes/remove: null email',
      'POST',
      '/recipe/signinup/codes/remove',
      () => ({ body: { email: null } }),
      "Field name 'email' is invalid in JSON input",
    ],

    [
      'update: no id',
      'PUT',
      '/recipe/user',
      () => ({ body: { email: 'x@example.com' }, headers: pl }),
      "Field name 'recipeUserId' is invalid in JSON input",
    ],
    [
      'update: no id, cdi 3.0',
      'PUT',
      '/recipe/user',
      () => ({ body: { email: 'x@example.com' }, headers: { ...pl, 'cdi-version': '3.0' } }),
      "Field name 'userId' is invalid in JSON input",
    ],
    [
      'update: null recipeUserId',
      'PUT',
      '/recipe/user',
      () => ({ body: { recipeUserId: null, userId }, headers: pl }),
      "Field name 'recipeUserId' is invalid in JSON input",
    ],
    [
      'update: numeric email',
      'PUT',
      '/recipe/user',
      () => ({ body: { recipeUserId: userId, email: 5 }, headers: pl }),
      "Field name 'email' is invalid in JSON input",
    ],
    [
      'update: object email',
      'PUT',
      '/recipe/user',
      () => ({ body: { recipeUserId: userId, email: { a: 1 } }, headers: pl }),
      "Field name 'email' is invalid in JSON input",
    ],
    [
      'update: boolean phoneNumber',
      'PUT',
      '/recipe/user',
      () => ({ body: { recipeUserId: userId, phoneNumber: true }, headers: pl }),
      "Field name 'phoneNumber' is invalid in JSON input",
    ],
    [
      'update: clearing the only contact',
      'PUT',
      '/recipe/user',
      () => ({ body: { recipeUserId: userId, email: null }, headers: pl }),
      'You cannot clear both email and phone number of a user',
    ],
    [
      'update: clearing both',
      'PUT',
      '/recipe/user',
      () => ({ body: { userId, email: null, phoneNumber: null }, headers: pl }),
      'You cannot clear both email and phone number of a user',
    ],
    ['get user: nothing', 'GET', '/recipe/user', () => ({ headers: pl }), 'Please provide exactly one of userId, email or phoneNumber'],
    [
      'get user: userId and email',
      'GET',
      '/recipe/user',
      () => ({ query: { userId, email: 'user@example.com' }, headers: pl }),
      'Please provide exactly one of userId, email or phoneNumber',
    ],
    [
      'get user: by email, other tenant',
      'GET',
      '/t1/recipe/user',
      () => ({ query: { email: 'user@example.com' }, headers: pl }),
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, t1)',
    ],
  ];

  it.each(cases)('%s', async (_name, method, url, input, message) => {
    const { body, query, headers } = input();
    const reply = await call(t.app, method, url, { body, query, headers });
    expect([reply.statusCode, reply.body, reply.contentType]).toEqual([400, `${message}\n`, 'text/html; charset=UTF-8']);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it.each([
    ['PUT', '/t1/recipe/user', { body: { recipeUserId: 'x', email: 'a@b.c' } }],
    ['GET', '/t1/recipe/user', { query: { userId: 'x' } }],
  ] as const)('%s %s by user id is app-specific: 403 with a tenant at cdi 5.x', async (method, url, input) => {
    const reply = await call(t.app, method, url, { ...input, headers: pl });
    expect([reply.statusCode, reply.body]).toEqual([403, 'Only public tenantId can call this app specific API\n']);
    expect(await snapshot(t.db)).toEqual(before);
  });
});
