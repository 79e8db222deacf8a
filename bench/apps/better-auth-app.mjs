// The reference app of the app-level benchmark: the same Express app on better-auth (an in-process library) with
// its built-in PostgreSQL support on a pg pool of POOL_SIZE connections whose search_path is SCHEMA, and the same
// bcrypt check as the core (the native `bcrypt` package). Rate limiting and telemetry are off: the load comes from
// one address and nothing may leave the machine. Started by bench/scenarios/app.ts as its own process; it creates
// its tables (better-auth's own migrations) before it answers /hello.
//
// Routes: POST /api/auth/sign-in/email (better-auth's handler), GET /api/me (protected: `getSession`, which reads
// the session row), POST /api/refresh (`getSession` of a second instance on the same tables whose `updateAge` is
// 0, so that every call extends the session: writes its row and sets the cookie again, better-auth's refresh).
import http from 'node:http';
import bcrypt from 'bcrypt';
import express from 'express';
import pg from 'pg';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { fromNodeHeaders, toNodeHandler } from 'better-auth/node';

const port = Number(process.env.PORT);
const url = `http://127.0.0.1:${port}`;
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  options: `-c search_path=${process.env.SCHEMA}`,
  max: Number(process.env.POOL_SIZE ?? 10),
});

const options = {
  baseURL: url,
  secret: process.env.AUTH_SECRET,
  database: pool,
  emailAndPassword: {
    enabled: true,
    password: {
      hash: (password) => bcrypt.hash(password, 10),
      verify: ({ hash, password }) => bcrypt.compare(password, hash),
    },
  },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
};
const auth = betterAuth(options);
const refreshing = betterAuth({ ...options, session: { updateAge: 0 } });

const { runMigrations } = await getMigrations(options);
await runMigrations();

const app = express();
app.set('etag', false);
app.get('/hello', (_request, response) => response.send('Hello'));
app.all('/api/auth/*', toNodeHandler(auth));
app.get('/api/me', async (request, response, next) => {
  try {
    const session = await auth.api.getSession({ headers: fromNodeHeaders(request.headers) });
    if (!session) {
      response.status(401).json({ message: 'unauthorised' });
      return;
    }
    response.json({ status: 'OK', userId: session.user.id });
  } catch (error) {
    next(error);
  }
});
app.post('/api/refresh', async (request, response, next) => {
  try {
    const { headers, response: session } = await refreshing.api.getSession({
      headers: fromNodeHeaders(request.headers),
      returnHeaders: true,
    });
    if (!session) {
      response.status(401).json({ message: 'unauthorised' });
      return;
    }
    const cookies = headers.getSetCookie();
    if (cookies.length > 0) response.setHeader('set-cookie', cookies);
    response.json({ status: 'OK', userId: session.user.id });
  } catch (error) {
    next(error);
  }
});
// Express tells an error handler by its four parameters.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
app.use((error, _request, response, _next) => {
  response.status(500).json({ message: error.message });
});

http.createServer(app).listen(port, '127.0.0.1');
process.once('SIGTERM', () => process.exit(0));
