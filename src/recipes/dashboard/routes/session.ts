import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { requiredQuery } from '../../../http/query.js';
import { requiredText } from '../fields.js';
import { normaliseDashboardEmail } from '../service.js';
import { CredentialsBody, OkResponse, SessionIdBody, SessionIdQuery, SignInResponse, TextError, VerifyResponse } from '../schemas.js';

// D1–D3: what the SDK's Dashboard recipe calls in its email-password mode. App-scoped, so the path's tenant is
// checked before the body is read, as the reference does.
const sessionRoutes: FastifyPluginAsync = async (app) => {
  const dashboard = () => app.services.dashboard;

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/dashboard/signin',
    schema: { body: CredentialsBody, response: { 200: SignInResponse, 400: TextError, 429: TextError, 503: TextError } },
    scope: 'app',
    handle: async ({ body, ip }) => {
      const email = normaliseDashboardEmail(requiredText(body, 'email'));
      const password = requiredText(body, 'password');
      return dashboard().signIn(email, password, ip);
    },
  });

  // The SDK sends the Authorization header's session id; without one it sends `{}` (a 400 here, as in the reference).
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/dashboard/session/verify',
    schema: { body: SessionIdBody, response: { 200: VerifyResponse, 400: TextError } },
    scope: 'app',
    handle: async ({ body, cdiVersion }) => {
      const email = await dashboard().verifySession(requiredText(body, 'sessionId').trim());
      if (email === undefined) return { status: 'INVALID_SESSION_ERROR' as const };
      return cdiAtLeast(cdiVersion, '3.0') ? { status: 'OK' as const, email } : { status: 'OK' as const };
    },
  });

  // Always OK, whether or not the session existed. The body is never read (app.ts), so the SDK's JSON content type
  // with no body is fine.
  defineRoute(app, {
    method: 'DELETE',
    url: '/recipe/dashboard/session',
    schema: { querystring: SessionIdQuery, response: { 200: OkResponse, 400: TextError } },
    scope: 'app',
    handle: async ({ query }) => {
      await dashboard().revokeSession(requiredQuery(query, 'sessionId').trim());
      return { status: 'OK' as const };
    },
  });
};

export default sessionRoutes;
