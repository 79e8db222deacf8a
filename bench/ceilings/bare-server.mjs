// The ceiling process: bare Fastify + pg doing only the SQL a hot path cannot avoid, started exactly like the
// core (`node <file>`, no transpiler) so that its throughput, start time and RSS are a fair yardstick.
// Plain JavaScript on purpose: Node 20 cannot run TypeScript without a loader, and a loader would cost start time.
import crypto from 'node:crypto';
import Fastify from 'fastify';
import { CompactSign, importPKCS8 } from 'jose';
import pg from 'pg';

const { DATABASE_URL, POSTGRESQL_TABLE_SCHEMA, PORT, POOL_SIZE } = process.env;
const pool = new pg.Pool({
  connectionString: DATABASE_URL,
  max: Number(POOL_SIZE ?? 10),
  options: `-c search_path=${pg.escapeIdentifier(POSTGRESQL_TABLE_SCHEMA ?? 'public')}`,
});
const app = Fastify({ logger: false });

// Every statement is a named prepared statement, planned once per connection: the cheapest way pg offers, so
// that the ceiling is the best a route can do and not a strawman.
app.get('/hello', async (_request, reply) => {
  await pool.query({ name: 'hello', text: 'SELECT 1' });
  return reply.type('text/html; charset=UTF-8').send('Hello\n');
});

// One INSERT of the row the import route writes for a new user.
app.post('/import', async (request) => {
  const { email, passwordHash } = request.body;
  const user = { id: crypto.randomUUID(), email: email.trim().toLowerCase(), timeJoined: Date.now() };
  await pool.query({
    name: 'import',
    text: `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, password_hash)
           VALUES ($1, 'public', 'emailpassword', $2, $3, $4)`,
    values: [user.id, user.timeJoined, user.email, passwordHash.trim()],
  });
  return { status: 'OK', user: wireUser(user, 'emailpassword'), didUserAlreadyExist: false };
});

async function transaction(work) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

// Sessions: the one INSERT of a new session, the locked read and UPDATE of a refresh, the read of a verify
// with checkDatabase. No token is made here: signing is measured on its own, in the benchmark process.
const sessionHash = () => crypto.createHash('sha256').update(crypto.randomBytes(32)).digest('hex');
app.post('/session/create', async (request) => {
  const handle = crypto.randomUUID();
  const now = Date.now();
  await pool.query({
    name: 'insert-session',
    text: `INSERT INTO session_info (tenant_id, session_handle, user_id, refresh_token_hash_2, prev_refresh_token_hash_2,
             refresh_token_rotated_at, session_data, jwt_user_payload, expires_at, created_at_time, use_static_key)
           VALUES ('public', $1, $2, $3, NULL, NULL, $4, $5, $6, $7, false)`,
    values: [handle, request.body.userId, sessionHash(), '{}', '{}', now + 8_640_000_000, now],
  });
  return { status: 'OK', handle };
});

// The same INSERT and an RS256 signature of the access-token payload (jose, WebCrypto key, as the core signs): the
// sum of the two ceilings' work in one route, a second reference for create.
const signingKey = await importPKCS8(
  crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
  'RS256',
);
const encoder = new globalThis.TextEncoder();
app.post('/session/create-signed', async (request) => {
  const handle = crypto.randomUUID();
  const now = Date.now();
  const refreshHash1 = sessionHash();
  const payload = {
    sub: request.body.userId,
    exp: Math.floor(now / 1000) + 3600,
    iat: Math.floor(now / 1000),
    tId: 'public',
    rsub: request.body.userId,
    sessionHandle: handle,
    refreshTokenHash1: refreshHash1,
    parentRefreshTokenHash1: null,
    antiCsrfToken: null,
    role: 'member',
  };
  const [token] = await Promise.all([
    new CompactSign(encoder.encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: 'd-1', version: '5' })
      .sign(signingKey),
    pool.query({
      name: 'insert-session',
      text: `INSERT INTO session_info (tenant_id, session_handle, user_id, refresh_token_hash_2, prev_refresh_token_hash_2,
               refresh_token_rotated_at, session_data, jwt_user_payload, expires_at, created_at_time, use_static_key)
             VALUES ('public', $1, $2, $3, NULL, NULL, $4, $5, $6, $7, false)`,
      values: [
        handle,
        request.body.userId,
        crypto.createHash('sha256').update(refreshHash1).digest('hex'),
        '{}',
        '{}',
        now + 8_640_000_000,
        now,
      ],
    }),
  ]);
  return { status: 'OK', handle, accessToken: token };
});

app.post('/session/refresh', async (request) => {
  const { handle } = request.body;
  const now = Date.now();
  await transaction(async (client) => {
    const { rows } = await client.query({
      name: 'lock-session',
      text: 'SELECT refresh_token_hash_2 FROM session_info WHERE tenant_id = $1 AND session_handle = $2 FOR UPDATE',
      values: ['public', handle],
    });
    await client.query({
      name: 'rotate-session',
      text: `UPDATE session_info SET refresh_token_hash_2 = $3, prev_refresh_token_hash_2 = $4, refresh_token_rotated_at = $5,
               expires_at = $6 WHERE tenant_id = $1 AND session_handle = $2`,
      values: ['public', handle, sessionHash(), rows[0]?.refresh_token_hash_2 ?? null, now, now + 8_640_000_000],
    });
  });
  return { status: 'OK', handle };
});

app.post('/session/verify', async (request) => {
  const { rows } = await pool.query({
    name: 'find-session',
    text: 'SELECT jwt_user_payload FROM session_info WHERE tenant_id = $1 AND session_handle = $2',
    values: ['public', request.body.handle],
  });
  return rows.length === 0 ? { status: 'UNAUTHORISED' } : { status: 'OK' };
});

// Session bridge: the one statement an exchange cannot avoid, finding the imported user by the old id and recording
// the token as spent (a fresh digest per request). No token is verified here: that is measured in the bench process.
app.post('/bridge/spend', async (request) => {
  const { oldId } = request.body;
  const now = Date.now();
  const { rows } = await pool.query({
    name: 'bridge-spend',
    text: `WITH target AS (SELECT u.user_id FROM user_id_mappings m JOIN users u ON u.user_id = m.user_id
                           WHERE m.external_user_id = $1 AND u.tenant_id = 'public'),
           spent AS (INSERT INTO session_bridge_exchanges (token_digest, source, user_id, exchanged_at, expires_at)
                     SELECT $2, 'fb', user_id, $3, $4 FROM target ON CONFLICT (token_digest) DO NOTHING RETURNING user_id)
           SELECT t.user_id, EXISTS (SELECT 1 FROM spent) AS spent FROM target t`,
    values: [oldId, crypto.randomBytes(32), now, now + 3_600_000],
  });
  return rows[0]?.spent ? { status: 'OK', userId: rows[0].user_id } : { status: 'UNKNOWN_USER_ERROR' };
});

// BEGIN / SELECT / INSERT / COMMIT: look for the device, then store it.
app.post('/passwordless/create', async (request) => {
  const email = request.body.email.trim().toLowerCase();
  const deviceId = crypto.randomBytes(32);
  const preAuthSessionId = crypto.createHash('sha256').update(deviceId).digest('base64url');
  const linkCode = crypto.randomBytes(32).toString('base64url');
  const timeCreated = Date.now();
  await transaction(async (client) => {
    await client.query({
      name: 'find-device',
      text: 'SELECT 1 FROM passwordless_devices WHERE tenant_id = $1 AND device_id_hash = $2',
      values: ['public', preAuthSessionId],
    });
    await client.query({
      name: 'insert-device',
      text: `INSERT INTO passwordless_devices (tenant_id, device_id_hash, email, link_code_salt, created_at)
             VALUES ('public', $1, $2, $3, $4)`,
      values: [preAuthSessionId, email, crypto.randomBytes(32).toString('base64'), timeCreated],
    });
  });
  return {
    status: 'OK',
    preAuthSessionId,
    codeId: crypto.randomUUID(),
    deviceId: deviceId.toString('base64'),
    userInputCode: '123456',
    linkCode,
    timeCreated,
    codeLifetime: 900000,
  };
});

// BEGIN / SELECT / INSERT / COMMIT: read the device, then create the user.
app.post('/passwordless/consume', async (request) => {
  const { preAuthSessionId } = request.body;
  const user = await transaction(async (client) => {
    const { rows } = await client.query({
      name: 'device-email',
      text: 'SELECT email FROM passwordless_devices WHERE tenant_id = $1 AND device_id_hash = $2',
      values: ['public', preAuthSessionId],
    });
    if (rows.length === 0) return undefined;
    const created = { id: crypto.randomUUID(), email: rows[0].email, timeJoined: Date.now() };
    await client.query({
      name: 'insert-passwordless-user',
      text: `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email) VALUES ($1, 'public', 'passwordless', $2, $3)`,
      values: [created.id, created.timeJoined, created.email],
    });
    return created;
  });
  if (!user) return { status: 'RESTART_FLOW_ERROR' };
  return {
    status: 'OK',
    createdNewUser: true,
    user: wireUser(user, 'passwordless'),
    recipeUserId: user.id,
    consumedDevice: { preAuthSessionId, failedCodeInputAttemptCount: 0, email: user.email },
  };
});

function wireUser({ id, email, timeJoined }, recipeId) {
  return {
    id,
    isPrimaryUser: false,
    tenantIds: ['public'],
    timeJoined,
    emails: [email],
    phoneNumbers: [],
    thirdParty: [],
    webauthn: { credentialIds: [] },
    loginMethods: [{ recipeId, recipeUserId: id, tenantIds: ['public'], email, timeJoined, verified: false }],
  };
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    await app.close();
    await pool.end();
    process.exit(0);
  });
}

await app.listen({ port: Number(PORT), host: '127.0.0.1' });
