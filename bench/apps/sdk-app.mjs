// The app of the app-level benchmark, built on the core: Express with supertokens-node's own request layer
// (`middleware()` serving /auth/*, `verifySession()` on the app's route, `errorHandler()`), recipes EmailPassword and
// Session at their defaults, pointed at CORE_URL. Started by bench/scenarios/app.ts as its own process.
//
// Routes: POST /auth/signin and POST /auth/session/refresh (the SDK's), GET /api/me (protected: the access token is
// checked against the core's JWKS in this process), GET /hello (readiness), GET /bench/core-calls (how many requests
// the SDK has sent to the core so far, by method and path).
import http from 'node:http';
import { URL } from 'node:url';
import express from 'express';
import supertokens from 'supertokens-node';
import { errorHandler, middleware } from 'supertokens-node/framework/express/index.js';
import Session from 'supertokens-node/recipe/session/index.js';
import { verifySession } from 'supertokens-node/recipe/session/framework/express/index.js';
import EmailPassword from 'supertokens-node/recipe/emailpassword/index.js';

const port = Number(process.env.PORT);
const url = `http://127.0.0.1:${port}`;
const coreCalls = new Map();

supertokens.init({
  framework: 'express',
  supertokens: {
    connectionURI: process.env.CORE_URL,
    networkInterceptor: (request) => {
      const key = `${request.method.toUpperCase()} ${new URL(request.url).pathname.replace(/^\/public\//, '/')}`;
      coreCalls.set(key, (coreCalls.get(key) ?? 0) + 1);
      return request;
    },
  },
  appInfo: { appName: 'bench sdk app', apiDomain: url, websiteDomain: url, apiBasePath: '/auth', websiteBasePath: '/auth' },
  recipeList: [EmailPassword.init(), Session.init()],
});

const app = express();
app.set('etag', false);
app.get('/hello', (_request, response) => response.send('Hello'));
app.get('/bench/core-calls', (_request, response) => response.json(Object.fromEntries(coreCalls)));
app.use(middleware());
app.get('/api/me', verifySession(), (request, response) => {
  response.json({ status: 'OK', userId: request.session.getUserId() });
});
app.use(errorHandler());
// Express tells an error handler by its four parameters.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
app.use((error, _request, response, _next) => {
  response.status(500).json({ message: error.message });
});

http.createServer(app).listen(port, '127.0.0.1');
process.once('SIGTERM', () => process.exit(0));
