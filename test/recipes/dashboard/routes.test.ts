import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, useTestApp, type TestApp } from '../../helper.js';

const DAY_MS = 86_400_000;
const cdi = (version: string) => ({ 'cdi-version': version });

async function createUser(t: TestApp, email: string, password = 'dashboard-pass-1') {
  const reply = await call(t.app, 'POST', '/recipe/dashboard/user', { body: { email, password } });
  expect(reply.json.status).toBe('OK');
  return reply.json.user as { email: string; userId: string; timeJoined: number };
}

async function signIn(t: TestApp, email: string, password = 'dashboard-pass-1') {
  return call(t.app, 'POST', '/recipe/dashboard/signin', { body: { email, password } });
}

async function verify(t: TestApp, sessionId: string, headers: Record<string, string> = {}) {
  return call(t.app, 'POST', '/recipe/dashboard/session/verify', { body: { sessionId }, headers });
}

const text = (reply: { statusCode: number; body: string }) => [reply.statusCode, reply.body.trimEnd()];

describe('dashboard users (D4, D5)', () => {
  const t = useTestApp();

  it('creates a user with a trimmed, lower-cased email and only a hash of the password', async () => {
    const reply = await call(t.app, 'POST', '/recipe/dashboard/user', {
      body: { email: '  Ada@Example.COM ', password: 'Secret-pass-42' },
    });
    expect(reply.statusCode).toBe(200);
    expect(reply.json).toEqual({
      status: 'OK',
      user: { email: 'ada@example.com', userId: expect.stringMatching(/^[0-9a-f-]{36}$/), timeJoined: t.clock.nowMs },
    });
    expect(reply.body).not.toContain('Secret-pass-42');
    const { rows } = await t.db.pool.query('SELECT password_hash FROM dashboard_users WHERE email = $1', ['ada@example.com']);
    expect(rows[0].password_hash).toMatch(/^\$2[aby]\$04\$/);
    expect(rows[0].password_hash).not.toContain('Secret-pass-42');
  });

  it('answers the reference statuses and 400 texts for bad input, in its order', async () => {
    const post = (body: unknown) => call(t.app, 'POST', '/recipe/dashboard/user', { body });
    expect(text(await post({ password: 'abcdefg1' }))).toEqual([400, "Field name 'email' is invalid in JSON input"]);
    expect(text(await post({ email: 5, password: 'abcdefg1' }))).toEqual([400, "Field name 'email' is invalid in JSON input"]);
    expect(text(await post({ email: '  ', password: 'abcdefg1' }))).toEqual([400, "Field name 'email' cannot be an empty String"]);
    expect((await post({ email: 'not-an-email', password: 'abcdefg1' })).json).toEqual({ status: 'INVALID_EMAIL_ERROR' });
    // The email is judged before the password is read.
    expect((await post({ email: 'not-an-email', password: 5 })).json).toEqual({ status: 'INVALID_EMAIL_ERROR' });
    expect(text(await post({ email: 'b@example.com' }))).toEqual([400, "Field name 'password' is invalid in JSON input"]);
    expect(text(await post({ email: 'b@example.com', password: ' ' }))).toEqual([400, "Field name 'password' cannot be an empty String"]);
    expect(text(await post({ email: `${'x'.repeat(250)}@example.com`, password: 'abcdefg1' }))).toEqual([
      400,
      'email is too long. Max length is 256.',
    ]);
    const weak = async (password: string) => (await post({ email: 'b@example.com', password })).json;
    expect(await weak('short1')).toEqual({
      status: 'PASSWORD_WEAK_ERROR',
      message: 'Password must contain at least 8 characters, including a number',
    });
    expect(await weak(`${'a'.repeat(99)}1`)).toEqual({
      status: 'PASSWORD_WEAK_ERROR',
      message: "Password's length must be lesser than 100 characters",
    });
    expect(await weak('12345678')).toEqual({ status: 'PASSWORD_WEAK_ERROR', message: 'Password must contain at least one alphabet' });
    expect(await weak('abcdefgh')).toEqual({ status: 'PASSWORD_WEAK_ERROR', message: 'Password must contain at least one number' });
    expect((await post({ email: 'B@example.com', password: 'abcdefg1' })).json.status).toBe('OK');
    expect((await post({ email: 'b@EXAMPLE.com', password: 'other-pass-2' })).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    const { rows } = await t.db.pool.query('SELECT email FROM dashboard_users WHERE email LIKE $1', ['%b@example.com']);
    expect(rows).toEqual([{ email: 'b@example.com' }]);
  });

  it('has no user limit: the fifth user signs in like the first', async () => {
    const emails = ['u1@limit.test', 'u2@limit.test', 'u3@limit.test', 'u4@limit.test', 'u5@limit.test'];
    for (const email of emails) await createUser(t, email);
    for (const email of emails) expect((await signIn(t, email)).json).toEqual({ status: 'OK', sessionId: expect.any(String) });
  });

  it('lists users and a user’s valid sessions, naming each session by its digest only', async () => {
    const user = await createUser(t, 'list@example.com');
    const { sessionId } = (await signIn(t, 'list@example.com')).json;
    const users = (await call(t.app, 'GET', '/recipe/dashboard/users')).json;
    expect(users.status).toBe('OK');
    expect(users.users).toContainEqual(user);
    const sessions = await call(t.app, 'GET', `/recipe/dashboard/user/sessions?userId=${user.userId}`);
    expect(sessions.json).toEqual({
      status: 'OK',
      sessions: [
        {
          userId: user.userId,
          sessionId: createHash('sha256').update(sessionId).digest('hex'),
          timeCreated: t.clock.nowMs,
          expiry: t.clock.nowMs + 30 * DAY_MS,
        },
      ],
    });
    expect(sessions.body).not.toContain(sessionId);
    expect(text(await call(t.app, 'GET', '/recipe/dashboard/user/sessions'))).toEqual([
      400,
      "Field name 'userId' is missing in GET request",
    ]);
    expect((await call(t.app, 'GET', '/recipe/dashboard/user/sessions?userId=not-a-uuid')).json).toEqual({ status: 'OK', sessions: [] });
  });

  it('PUT checks the new values first, lets userId win, and ends every session of the user', async () => {
    const user = await createUser(t, 'put@example.com');
    const other = await createUser(t, 'taken@example.com');
    const first = (await signIn(t, 'put@example.com')).json.sessionId;
    const second = (await signIn(t, 'put@example.com')).json.sessionId;
    const keep = (await signIn(t, 'taken@example.com')).json.sessionId;
    const put = (body: unknown) => call(t.app, 'PUT', '/recipe/dashboard/user', { body });

    expect((await put({ newEmail: 'nope' })).json).toEqual({ status: 'INVALID_EMAIL_ERROR' });
    expect((await put({ newPassword: 'short' })).json.status).toBe('PASSWORD_WEAK_ERROR');
    expect(text(await put({ newPassword: 'long-enough-1' }))).toEqual([400, "Either field 'email' or 'userId' must be present"]);
    expect(text(await put({ userId: 5 }))).toEqual([400, "Field name 'userId' is invalid in JSON input"]);
    expect(text(await put({ email: ' ' }))).toEqual([400, "Field name 'email' cannot be an empty String"]);
    expect((await put({ userId: '00000000-0000-4000-8000-000000000000', newPassword: 'long-enough-1' })).json).toEqual({
      status: 'UNKNOWN_USER_ERROR',
    });
    expect((await put({ email: 'nobody@example.com', newPassword: 'long-enough-1' })).json).toEqual({ status: 'UNKNOWN_USER_ERROR' });
    expect((await put({ userId: user.userId, newEmail: 'TAKEN@example.com' })).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    // Nothing changed so far: both sessions still valid.
    expect((await verify(t, first)).json.status).toBe('OK');

    // userId wins over an email naming another user.
    const changed = await put({
      userId: user.userId,
      email: 'taken@example.com',
      newEmail: 'Moved@Example.com',
      newPassword: 'new-pass-77',
    });
    expect(changed.json).toEqual({ status: 'OK', user: { ...user, email: 'moved@example.com' } });
    expect((await verify(t, first)).json).toEqual({ status: 'INVALID_SESSION_ERROR' });
    expect((await verify(t, second)).json).toEqual({ status: 'INVALID_SESSION_ERROR' });
    expect((await verify(t, keep)).json).toEqual({ status: 'OK', email: other.email });
    expect((await signIn(t, 'moved@example.com')).json).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
    expect((await signIn(t, 'moved@example.com', 'new-pass-77')).json.status).toBe('OK');

    // By email.
    expect((await put({ email: 'MOVED@example.com', newPassword: 'third-pass-3' })).json.status).toBe('OK');
    expect((await signIn(t, 'moved@example.com', 'third-pass-3')).json.status).toBe('OK');
  });

  it('DELETE removes a user by userId or email with its sessions', async () => {
    const user = await createUser(t, 'del@example.com');
    const { sessionId } = (await signIn(t, 'del@example.com')).json;
    expect(text(await call(t.app, 'DELETE', '/recipe/dashboard/user'))).toEqual([400, "Either field 'email' or 'userId' must be present"]);
    expect(text(await call(t.app, 'DELETE', '/recipe/dashboard/user?userId=%20'))).toEqual([
      400,
      "Field name 'userId' cannot be an empty String",
    ]);
    expect((await call(t.app, 'DELETE', `/recipe/dashboard/user?userId=${user.userId}`)).json).toEqual({
      status: 'OK',
      didUserExist: true,
    });
    expect((await call(t.app, 'DELETE', `/recipe/dashboard/user?userId=${user.userId}`)).json).toEqual({
      status: 'OK',
      didUserExist: false,
    });
    expect((await verify(t, sessionId)).json).toEqual({ status: 'INVALID_SESSION_ERROR' });
    const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM dashboard_sessions WHERE user_id = $1', [user.userId]);
    expect(rows[0].n).toBe(0);
    await createUser(t, 'del2@example.com');
    expect((await call(t.app, 'DELETE', '/recipe/dashboard/user?email=DEL2@example.com')).json).toEqual({
      status: 'OK',
      didUserExist: true,
    });
  });
});

describe('dashboard sessions (D1–D3)', () => {
  const t = useTestApp({ costly_signin_failures_per_account: 3, costly_signin_failures_per_client: 50 });

  it('signs in once per session id, stores only its SHA-256 digest, and verifies with the email from cdi 3.0', async () => {
    await createUser(t, 'sess@example.com');
    const reply = await signIn(t, ' SESS@example.com ');
    expect(reply.json).toEqual({ status: 'OK', sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const { sessionId } = reply.json;
    const { rows } = await t.db.pool.query('SELECT session_id_hash, time_created::float8, expiry::float8 FROM dashboard_sessions');
    expect(rows).toEqual([
      {
        session_id_hash: createHash('sha256').update(sessionId).digest(),
        time_created: t.clock.nowMs,
        expiry: t.clock.nowMs + 30 * DAY_MS,
      },
    ]);
    expect((await verify(t, sessionId)).json).toEqual({ status: 'OK', email: 'sess@example.com' });
    expect((await verify(t, sessionId, cdi('3.0'))).json).toEqual({ status: 'OK', email: 'sess@example.com' });
    expect((await verify(t, sessionId, cdi('2.21'))).json).toEqual({ status: 'OK' });
    expect((await verify(t, 'f3b0c4a2-0000-4000-8000-000000000000')).json).toEqual({ status: 'INVALID_SESSION_ERROR' });
  });

  it('answers wrong passwords and unknown emails alike, and 400 for missing or blank fields', async () => {
    await createUser(t, 'wrong@example.com');
    expect((await signIn(t, 'wrong@example.com', 'not-the-pass-1')).json).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
    expect((await signIn(t, 'nobody@example.com')).json).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
    const post = (body: unknown) => call(t.app, 'POST', '/recipe/dashboard/signin', { body });
    expect(text(await post({ email: 'wrong@example.com', password: '' }))).toEqual([
      400,
      "Field name 'password' cannot be an empty String",
    ]);
    expect(text(await post({ password: 'x' }))).toEqual([400, "Field name 'email' is invalid in JSON input"]);
    expect(text(await call(t.app, 'POST', '/recipe/dashboard/session/verify', { body: {} }))).toEqual([
      400,
      "Field name 'sessionId' is invalid in JSON input",
    ]);
    expect(text(await call(t.app, 'POST', '/recipe/dashboard/session/verify', { body: { sessionId: ' ' } }))).toEqual([
      400,
      "Field name 'sessionId' cannot be an empty String",
    ]);
  });

  it('expires a session after dashboard_session_validity_ms, and the sweep deletes it', async () => {
    await createUser(t, 'expire@example.com');
    const { sessionId } = (await signIn(t, 'expire@example.com')).json;
    t.clock.advance(30 * DAY_MS - 1);
    expect((await verify(t, sessionId)).json.status).toBe('OK');
    const fresh = (await signIn(t, 'expire@example.com')).json.sessionId;
    t.clock.advance(1);
    expect((await verify(t, sessionId)).json).toEqual({ status: 'INVALID_SESSION_ERROR' });
    const digest = createHash('sha256').update(sessionId).digest();
    const count = async (hash: Buffer) =>
      (await t.db.pool.query('SELECT count(*)::int AS n FROM dashboard_sessions WHERE session_id_hash = $1', [hash])).rows[0].n;
    expect(await count(digest)).toBe(1);
    expect(await t.app.services.dashboard.deleteExpiredSessions()).toBeGreaterThanOrEqual(1);
    expect(await count(digest)).toBe(0);
    expect((await verify(t, fresh)).json.status).toBe('OK');
  });

  it('signs out with DELETE whatever its body or content type, and always answers OK', async () => {
    await createUser(t, 'out@example.com');
    const { sessionId } = (await signIn(t, 'out@example.com')).json;
    const signOut = await t.app.inject({
      method: 'DELETE',
      url: `/recipe/dashboard/session?sessionId=${sessionId}`,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect([signOut.statusCode, signOut.json()]).toEqual([200, { status: 'OK' }]);
    expect((await verify(t, sessionId)).json).toEqual({ status: 'INVALID_SESSION_ERROR' });
    const again = await call(t.app, 'DELETE', `/recipe/dashboard/session?sessionId=${sessionId}`, { body: '{not json' });
    expect([again.statusCode, again.json]).toEqual([200, { status: 'OK' }]);
    // A body is never read: the id must be in the query.
    const inBody = await call(t.app, 'DELETE', '/recipe/dashboard/session', { body: { sessionId } });
    expect(text(inBody)).toEqual([400, "Field name 'sessionId' is missing in GET request"]);
  });

  it('throttles failed sign-ins per email in the sign-in failure windows, apart from user sign-ins', async () => {
    await createUser(t, 'brute@example.com');
    for (let i = 0; i < 3; i++)
      expect((await signIn(t, 'brute@example.com', `guess-${i}-x`)).json.status).toBe('INVALID_CREDENTIALS_ERROR');
    const limited = await signIn(t, 'brute@example.com');
    expect(text(limited)).toEqual([429, 'Too many failed sign-in attempts; retry after 60 seconds']);
    expect(limited.headers['retry-after']).toBe('60');
    // An unknown email counts the same way, so a 429 tells nothing about which emails exist.
    for (let i = 0; i < 3; i++) await signIn(t, 'ghost@example.com', `guess-${i}-x`);
    expect((await signIn(t, 'ghost@example.com')).statusCode).toBe(429);
    const { rows } = await t.db.pool.query(`SELECT scope, key FROM signin_failure_windows ORDER BY scope, key`);
    expect(rows.every((row: { key: string }) => row.key.startsWith('dashboard:'))).toBe(true);
    t.clock.advance(60_000);
    expect((await signIn(t, 'brute@example.com')).json.status).toBe('OK');
  });
});

describe('dashboard reads and paths (D6–D8, T-7 row 24)', () => {
  const t = useTestApp();

  it('answers the search tags on any tenant path', async () => {
    for (const url of ['/user/search/tags', '/public/user/search/tags', '/acme/user/search/tags']) {
      expect((await call(t.app, 'GET', url)).json).toEqual({ status: 'OK', tags: ['email', 'phone', 'provider'] });
    }
  });

  it('lists the tenant core config without secrets, for an existing tenant only', async () => {
    const reply = await call(t.app, 'GET', '/public/recipe/dashboard/tenant/core-config');
    expect(reply.statusCode).toBe(200);
    const config = reply.json.config as { key: string; isDifferentAcrossTenants: boolean; value: unknown; valueType: string }[];
    expect(config.slice(0, 6).map((field) => [field.key, field.isDifferentAcrossTenants])).toEqual([
      ['password_reset_token_lifetime', true],
      ['email_verification_token_lifetime', true],
      ['passwordless_code_lifetime', true],
      ['passwordless_max_code_input_attempts', true],
      ['totp_max_attempts', true],
      ['totp_rate_limit_cooldown_sec', true],
    ]);
    expect(config.slice(6).every((field) => !field.isDifferentAcrossTenants)).toBe(true);
    expect(config.find((field) => field.key === 'password_hashing_alg')).toEqual({
      key: 'password_hashing_alg',
      valueType: 'enum',
      value: 'BCRYPT',
      description: 'algorithm for new hashes: BCRYPT or ARGON2',
      isDifferentAcrossTenants: false,
      possibleValues: ['BCRYPT', 'ARGON2'],
      isNullable: false,
      defaultValue: 'BCRYPT',
      isPluginProperty: false,
      isPluginPropertyEditable: false,
    });
    expect(config.find((field) => field.key === 'bcrypt_log_rounds')).toMatchObject({ valueType: 'number', value: 4, defaultValue: 11 });
    expect(reply.body).not.toMatch(/api_keys|secret|signer|postgresql/);
    expect((await call(t.app, 'GET', '/recipe/dashboard/tenant/core-config')).json).toEqual(reply.json);
    expect(text(await call(t.app, 'GET', '/acme/recipe/dashboard/tenant/core-config'))).toEqual([
      400,
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, acme)',
    ]);
  });

  it('lists a created tenant’s own override beside the app-wide values', async () => {
    const created = await call(t.app, 'PUT', '/recipe/multitenancy/tenant/v2', {
      body: { tenantId: 'globex', firstFactors: ['emailpassword'], coreConfig: { passwordless_code_lifetime: 120_000 } },
    });
    expect(created.statusCode).toBe(200);
    const config = (await call(t.app, 'GET', '/globex/recipe/dashboard/tenant/core-config')).json.config as {
      key: string;
      value: unknown;
    }[];
    const publicConfig = (await call(t.app, 'GET', '/recipe/dashboard/tenant/core-config')).json.config as {
      key: string;
      value: unknown;
    }[];
    expect(config.find((field) => field.key === 'passwordless_code_lifetime')?.value).toBe(120_000);
    expect(publicConfig.find((field) => field.key === 'passwordless_code_lifetime')?.value).not.toBe(120_000);
    expect(config.find((field) => field.key === 'bcrypt_log_rounds')?.value).toBe(4);
  });

  it('does not serve /telemetry, so the SDK never posts the admin’s email to its vendor', async () => {
    expect((await call(t.app, 'GET', '/telemetry')).statusCode).toBe(404);
  });

  it('refuses the app-scoped dashboard routes under a non-public tenant from cdi 5.0', async () => {
    const forbidden = [403, 'Only public tenantId can call this app specific API'];
    const headers = cdi('5.0');
    const body = { email: 'a@example.com', password: 'abcdefg1' };
    expect(text(await call(t.app, 'POST', '/acme/recipe/dashboard/signin', { body, headers }))).toEqual(forbidden);
    expect(text(await call(t.app, 'POST', '/acme/recipe/dashboard/session/verify', { body: { sessionId: 'x' }, headers }))).toEqual(
      forbidden,
    );
    expect(text(await call(t.app, 'POST', '/acme/recipe/dashboard/user', { body, headers }))).toEqual(forbidden);
    expect(text(await call(t.app, 'PUT', '/acme/recipe/dashboard/user', { body: { userId: 'x' }, headers }))).toEqual(forbidden);
    expect(text(await call(t.app, 'DELETE', '/acme/recipe/dashboard/user?userId=x', { headers }))).toEqual(forbidden);
    expect(text(await call(t.app, 'GET', '/acme/recipe/dashboard/users', { headers }))).toEqual(forbidden);
    const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM dashboard_users');
    expect(rows[0].n).toBe(0);
  });

  it('never reads the body of a GET, whatever its content type', async () => {
    for (const type of ['application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
      const reply = await t.app.inject({
        method: 'GET',
        url: '/recipe/dashboard/users',
        headers: { 'content-type': type },
        payload: '{not json',
      });
      expect([reply.statusCode, reply.json()]).toEqual([200, { status: 'OK', users: [] }]);
    }
  });
});

describe('dashboard secrets in the logs', () => {
  const t = useTestApp({ log_level: 'DEBUG' });

  it('never logs a dashboard password or session id', async () => {
    const password = 'logged-never-9f3k';
    await createUser(t, 'logs@example.com', password);
    const { sessionId } = (await signIn(t, 'logs@example.com', password)).json;
    await signIn(t, 'logs@example.com', `${password}-wrong`);
    await verify(t, sessionId);
    await call(t.app, 'PUT', '/recipe/dashboard/user', { body: { email: 'logs@example.com', newPassword: `${password}-new` } });
    await call(t.app, 'DELETE', `/recipe/dashboard/session?sessionId=${sessionId}`);
    await call(t.app, 'POST', '/recipe/dashboard/signin', { body: `{"email":"logs@example.com","password":"${password}` });
    const logs = t.logs.join('');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(password);
    expect(logs).not.toContain(sessionId);
  });
});

describe('dashboard sign-in failure floor', () => {
  const t = useTestApp({ signin_failure_min_duration_ms: 300 });

  it('holds a wrong password and an unknown email to signin_failure_min_duration_ms, not a success', async () => {
    await createUser(t, 'floor@example.com');
    const timed = async (email: string, password?: string) => {
      const started = performance.now();
      const reply = await signIn(t, email, password);
      return { status: reply.json.status as string, ms: performance.now() - started };
    };
    const wrong = await timed('floor@example.com', 'wrong-pass-1');
    const unknown = await timed('nobody@example.com');
    expect([wrong.status, unknown.status]).toEqual(['INVALID_CREDENTIALS_ERROR', 'INVALID_CREDENTIALS_ERROR']);
    expect(wrong.ms).toBeGreaterThanOrEqual(295);
    expect(unknown.ms).toBeGreaterThanOrEqual(295);
    expect((await timed('floor@example.com')).status).toBe('OK');
  });
});
