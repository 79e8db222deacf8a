import { describe, expect, it } from 'vitest';
import { call, useTestApp } from '../helper.js';

const apiKey = 'error-log-api-key-0123456789';
const scryptHash = '$f_scrypt$aGFzaGhhc2hoYXNoaGFzaA==$c2FsdHNhbHQ=$m=14$r=8$s=Bw==';

const t = useTestApp({ log_level: 'INFO', api_keys: apiKey });

// The log lines written while one request is answered.
async function logsOf(request: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const before = t.logs.length;
  await request();
  return t.logs.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
}

function refusal(lines: Record<string, unknown>[]) {
  const found = lines.filter((line) => line.msg === 'request refused');
  expect(found).toHaveLength(1);
  const { code, field, reason, statusCode, method, route, jsonBodyBytes } = found[0];
  return { code, field, reason, statusCode, method, route, jsonBodyBytes };
}

const headers = { 'api-key': apiKey };

describe('4xx answers are logged with the catalog code and the field, never the value', () => {
  it('a body field of the wrong type', async () => {
    const body = { email: 'who@example.com', password: 12345678 };
    const lines = await logsOf(() => call(t.app, 'POST', '/recipe/signin', { headers, body }));
    expect(refusal(lines)).toEqual({
      code: 'INVALID_FIELD',
      field: 'password',
      reason: "Field name 'password' is invalid in JSON input",
      statusCode: 400,
      method: 'POST',
      route: '/recipe/signin',
      jsonBodyBytes: undefined,
    });
    expect(lines.map((line) => JSON.stringify(line)).join('\n')).not.toContain('12345678');
  });

  it('a missing query parameter', async () => {
    const lines = await logsOf(() => call(t.app, 'GET', '/recipe/userid/map', { headers }));
    expect(refusal(lines)).toEqual({
      code: 'MISSING_QUERY_FIELD',
      field: 'userId',
      reason: "Field name 'userId' is missing in GET request",
      statusCode: 400,
      method: 'GET',
      route: '/recipe/userid/map',
      jsonBodyBytes: undefined,
    });
  });

  it('a wrong api key, without the key', async () => {
    const lines = await logsOf(() => call(t.app, 'GET', '/users/count', { headers: { 'api-key': 'a-guessed-key-0123456789' } }));
    expect(refusal(lines)).toEqual({
      code: 'INVALID_API_KEY',
      field: undefined,
      reason: 'Invalid API key',
      statusCode: 401,
      method: 'GET',
      route: '/users/count',
      jsonBodyBytes: undefined,
    });
    expect(t.logs.join('')).not.toContain('a-guessed-key-0123456789');
  });

  it('an unknown path and an unknown method', async () => {
    expect(refusal(await logsOf(() => call(t.app, 'GET', '/no/such/route')))).toMatchObject({ code: 'NOT_FOUND', statusCode: 404 });
    expect(refusal(await logsOf(() => call(t.app, 'PATCH', '/recipe/signin', { headers })))).toMatchObject({
      code: 'METHOD_NOT_SUPPORTED',
      statusCode: 405,
    });
  });

  it('a bulk-import validation failure logs its size, not its text (which quotes emails)', async () => {
    const body = { users: [{ loginMethods: [{ recipeId: 'emailpassword', email: 'quoted@example.com' }] }] };
    const lines = await logsOf(() => call(t.app, 'POST', '/bulk-import/users', { headers, body }));
    const logged = refusal(lines);
    expect(logged).toMatchObject({ code: 'BULK_USERS_INVALID', statusCode: 400, route: '/bulk-import/users', reason: undefined });
    expect(logged.jsonBodyBytes).toBeGreaterThan(0);
    expect(lines.map((line) => JSON.stringify(line)).join('\n')).not.toContain('quoted@example.com');
  });
});

describe('a known configuration error', () => {
  it('is one line without a stack when the signer key is missing', async () => {
    const body = { email: 'scrypt@example.com', passwordHash: scryptHash, hashingAlgorithm: 'idp_scrypt' };
    const lines = await logsOf(() => call(t.app, 'POST', '/recipe/user/passwordhash/import', { headers, body }));
    const errors = lines.filter((line) => line.level === 50);
    expect(errors.map(({ code, msg, method, route, err }) => ({ code, msg, method, route, err }))).toEqual([
      {
        code: 'SIGNER_KEY_MISSING',
        msg: "'idp_password_hashing_signer_key' is not configured: set it in config.yaml or IDP_PASSWORD_HASHING_SIGNER_KEY",
        method: 'POST',
        route: '/recipe/user/passwordhash/import',
        err: undefined,
      },
    ]);
    expect(lines.map((line) => JSON.stringify(line)).join('\n')).not.toContain('stack');
  });
});
