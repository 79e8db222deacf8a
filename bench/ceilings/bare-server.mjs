// The ceiling process: bare Fastify + pg doing only the SQL a hot path cannot avoid, started exactly like the
// core (`node <file>`, no transpiler) so that its throughput, start time and RSS are a fair yardstick.
// Plain JavaScript on purpose: Node 20 cannot run TypeScript without a loader, and a loader would cost start time.
import crypto from 'node:crypto';
import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import Fastify from 'fastify';
import { CompactSign, createLocalJWKSet, importPKCS8, jwtVerify } from 'jose';
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

// What the core's refresh does in the database: the session row read under its lock, then its token rotated.
function lockAndRotate(handle, now, newHash, read) {
  return transaction(async (client) => {
    const { rows } = await client.query({
      name: read.name,
      text: `SELECT ${read.columns} FROM session_info WHERE tenant_id = $1 AND session_handle = $2 FOR UPDATE`,
      values: ['public', handle],
    });
    await client.query({
      name: 'rotate-session',
      text: `UPDATE session_info SET refresh_token_hash_2 = $3, prev_refresh_token_hash_2 = $4, refresh_token_rotated_at = $5,
               expires_at = $6 WHERE tenant_id = $1 AND session_handle = $2`,
      values: ['public', handle, newHash, rows[0]?.refresh_token_hash_2 ?? null, now, now + 8_640_000_000],
    });
    return rows[0];
  });
}

app.post('/session/refresh', async (request) => {
  const { handle } = request.body;
  await lockAndRotate(handle, Date.now(), sessionHash(), { name: 'lock-session', columns: 'refresh_token_hash_2' });
  return { status: 'OK', handle };
});

// The same locked read and UPDATE, then an RS256 signature of the access-token payload built from the row read (as
// the core signs after its statement answers): the second reference for refresh, both costs in one route.
app.post('/session/refresh-signed', async (request) => {
  const { handle } = request.body;
  const now = Date.now();
  const refreshHash1 = sessionHash();
  const row = await lockAndRotate(handle, now, crypto.createHash('sha256').update(refreshHash1).digest('hex'), {
    name: 'lock-session-payload',
    columns: 'user_id, refresh_token_hash_2, jwt_user_payload',
  });
  const payload = {
    sub: row.user_id,
    exp: Math.floor(now / 1000) + 3600,
    iat: Math.floor(now / 1000),
    tId: 'public',
    rsub: row.user_id,
    sessionHandle: handle,
    refreshTokenHash1: refreshHash1,
    parentRefreshTokenHash1: null,
    antiCsrfToken: null,
    ...JSON.parse(row.jwt_user_payload),
  };
  const token = await new CompactSign(encoder.encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: 'd-1', version: '5' })
    .sign(signingKey);
  return { status: 'OK', handle, accessToken: token };
});

app.post('/session/verify', async (request) => {
  const { rows } = await pool.query({
    name: 'find-session',
    text: 'SELECT jwt_user_payload FROM session_info WHERE tenant_id = $1 AND session_handle = $2',
    values: ['public', request.body.handle],
  });
  return rows.length === 0 ? { status: 'UNAUTHORISED' } : { status: 'OK' };
});

const bridgeSpendSql = `WITH target AS (SELECT u.user_id FROM user_id_mappings m JOIN users u ON u.user_id = m.user_id
                           WHERE m.external_user_id = $1 AND u.tenant_id = 'public'),
           spent AS (INSERT INTO session_bridge_exchanges (token_digest, source, user_id, exchanged_at, expires_at)
                     SELECT $2, 'fb', user_id, $3, $4 FROM target ON CONFLICT (token_digest) DO NOTHING RETURNING user_id)
           SELECT t.user_id, EXISTS (SELECT 1 FROM spent) AS spent FROM target t`;

// Session bridge: the one statement an exchange cannot avoid, finding the imported user by the old id and recording
// the token as spent (a fresh digest per request). No token is verified here: that is measured in the bench process.
app.post('/bridge/spend', async (request) => {
  const { oldId } = request.body;
  const now = Date.now();
  const { rows } = await pool.query({
    name: 'bridge-spend',
    text: bridgeSpendSql,
    values: [oldId, crypto.randomBytes(32), now, now + 3_600_000],
  });
  return rows[0]?.spent ? { status: 'OK', userId: rows[0].user_id } : { status: 'UNKNOWN_USER_ERROR' };
});

// Session bridge, the whole exchange a route cannot avoid: the old provider's token verified against its key set
// (given once by the bench, as the core keeps the fetched keys), then the spend statement above with its digest.
let bridge;
app.post('/bridge/keys', async (request) => {
  const { jwks, issuer, audience } = request.body;
  bridge = { keys: createLocalJWKSet(jwks), options: { algorithms: ['RS256'], issuer, audience } };
  return { status: 'OK' };
});

app.post('/bridge/exchange', async (request) => {
  const { token } = request.body;
  let payload;
  try {
    ({ payload } = await jwtVerify(token, bridge.keys, bridge.options));
  } catch {
    return { status: 'INVALID_TOKEN_ERROR' };
  }
  const now = Date.now();
  const { rows } = await pool.query({
    name: 'bridge-exchange',
    text: bridgeSpendSql,
    values: [payload.sub, crypto.createHash('sha256').update(token).digest(), now, payload.exp * 1000],
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

// Passkey sign-in: the options row the core stores, then one transaction doing the core's statements (options and
// credential read FOR UPDATE, the counter and last use written, the options spent, the login method read back) around
// the same @simplewebauthn/server check with the same expectations, and the same clone rule on the counter.
app.post('/webauthn/options/signin', async (request) => {
  const { relyingPartyId, relyingPartyName, origin, timeout, userVerification } = request.body;
  const row = {
    id: crypto.randomUUID(),
    challenge: crypto.randomBytes(32).toString('base64url'),
    createdAt: Date.now(),
    timeout: timeout ?? 6000,
    userVerification: userVerification || 'preferred',
  };
  await pool.query({
    name: 'insert-webauthn-options',
    text: `INSERT INTO webauthn_options (id, tenant_id, challenge, email, rp_id, rp_name, origin, timeout, user_verification,
             user_presence, supported_algorithm_ids, created_at, expires_at, uses_left)
           VALUES ($1, 'public', $2, NULL, $3, $4, $5, $6, $7, false, $8, $9, $10, 1)`,
    values: [
      row.id,
      row.challenge,
      relyingPartyId,
      relyingPartyName,
      origin,
      row.timeout,
      row.userVerification,
      [-8, -7, -257],
      row.createdAt,
      row.createdAt + row.timeout,
    ],
  });
  return {
    status: 'OK',
    webauthnGeneratedOptionsId: row.id,
    relyingPartyId,
    challenge: row.challenge,
    timeout: row.timeout,
    userVerification: row.userVerification,
    userPresence: false,
    createdAt: row.createdAt,
    expiresAt: row.createdAt + row.timeout,
  };
});

app.post('/webauthn/signin', async (request) => {
  const { webauthnGeneratedOptionsId, credential } = request.body;
  return transaction(async (client) => {
    const { rows: options } = await client.query({
      name: 'lock-webauthn-options',
      text: `SELECT challenge, rp_id, origin, user_verification, expires_at::float8 AS expires_at, uses_left
               FROM webauthn_options WHERE id = $1 AND tenant_id = 'public' FOR UPDATE`,
      values: [webauthnGeneratedOptionsId],
    });
    if (options.length === 0 || options[0].uses_left === 0) return { status: 'OPTIONS_NOT_FOUND_ERROR' };
    if (options[0].expires_at < Date.now()) return { status: 'INVALID_OPTIONS_ERROR' };
    const { rows: stored } = await client.query({
      name: 'lock-webauthn-credential',
      text: `SELECT user_id, public_key, counter::float8 AS counter FROM webauthn_credentials
              WHERE rp_id = $1 AND credential_id = $2 FOR UPDATE`,
      values: [options[0].rp_id, credential.id],
    });
    if (stored.length === 0) return { status: 'CREDENTIAL_NOT_FOUND_ERROR' };
    let result;
    try {
      result = await verifyAuthenticationResponse({
        response: credential,
        expectedChallenge: options[0].challenge,
        expectedOrigin: options[0].origin,
        expectedRPID: options[0].rp_id,
        requireUserVerification: options[0].user_verification === 'required',
        credential: { id: credential.id, publicKey: new Uint8Array(stored[0].public_key), counter: 0 },
      });
    } catch {
      return { status: 'INVALID_CREDENTIALS_ERROR' };
    }
    const { newCounter, credentialBackedUp } = result.authenticationInfo;
    if (!result.verified || (newCounter !== 0 && stored[0].counter !== 0 && newCounter <= stored[0].counter)) {
      return { status: 'INVALID_CREDENTIALS_ERROR' };
    }
    await client.query({
      name: 'use-webauthn-credential',
      text: `UPDATE webauthn_credentials SET counter = greatest(counter, $3), backed_up = $4, last_used_at = $5
              WHERE rp_id = $1 AND credential_id = $2`,
      values: [options[0].rp_id, credential.id, newCounter, credentialBackedUp, Date.now()],
    });
    await client.query({
      name: 'spend-webauthn-options',
      text: 'DELETE FROM webauthn_options WHERE id = $1',
      values: [webauthnGeneratedOptionsId],
    });
    const { rows: users } = await client.query({
      name: 'webauthn-login-method',
      // The core's select list for a login method (src/users/repository.ts userColumns).
      text: `SELECT u.user_id, u.tenant_id, u.recipe_id, u.time_joined::float8 AS time_joined, u.email, u.phone_number,
                    u.third_party_id, u.third_party_user_id, m.external_user_id,
                    (u.email IS NULL OR EXISTS (SELECT 1 FROM email_verifications ev WHERE ev.user_id = u.user_id AND ev.email = u.email OFFSET 0)) AS verified,
                    coalesce((SELECT lg.is_primary FROM user_ids li JOIN user_groups lg ON lg.group_id = li.group_id WHERE li.user_id = u.user_id), false)
                      AS in_primary_user,
                    ARRAY(SELECT wc.credential_id FROM webauthn_credentials wc WHERE wc.user_id = u.user_id
                          ORDER BY wc.created_at, wc.credential_id) AS credential_ids
               FROM users u LEFT JOIN user_id_mappings m ON m.user_id = u.user_id WHERE u.user_id = $1`,
      values: [stored[0].user_id],
    });
    const user = { id: users[0].user_id, email: users[0].email, timeJoined: users[0].time_joined };
    return {
      status: 'OK',
      user: { ...wireUser(user, 'webauthn'), webauthn: { credentialIds: users[0].credential_ids } },
      recipeUserId: user.id,
    };
  });
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
