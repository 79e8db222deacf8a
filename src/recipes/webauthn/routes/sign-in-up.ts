import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { toUserObject } from '../../../users/user-object.js';
import { CeremonyBody, SignInResponse, SignUpResponse, TextError } from '../schemas.js';

// Both answer the user object at the cdi-version asked for; webauthn came with 5.3, so recipeUserId is always there.
const signInUpRoutes: FastifyPluginAsync = async (app) => {
  const webauthn = () => app.services.webauthn;

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/webauthn/signup',
    schema: { body: CeremonyBody, response: { 200: SignUpResponse, 400: TextError } },
    scope: 'tenant',
    handle: async ({ body }, { tenantId, cdiVersion }) => {
      const result = await webauthn().signUp(tenantId, cdiVersion, body.webauthnGeneratedOptionsId, body.credential);
      if (result.status !== 'OK') return result;
      return {
        status: 'OK' as const,
        user: toUserObject(result.user, cdiVersion),
        webauthnCredentialId: result.credential.credential_id,
        relyingPartyId: result.options.rp_id,
        relyingPartyName: result.options.rp_name,
        recipeUserId: result.loginMethod.external_user_id ?? result.loginMethod.user_id,
      };
    },
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/webauthn/signin',
    schema: { body: CeremonyBody, response: { 200: SignInResponse, 400: TextError } },
    scope: 'tenant',
    handle: async ({ body }, { tenantId, cdiVersion }) => {
      const result = await webauthn().signIn(tenantId, cdiVersion, body.webauthnGeneratedOptionsId, body.credential);
      if (result.status !== 'OK') return result;
      const recipeUserId = result.loginMethod.external_user_id ?? result.loginMethod.user_id;
      return { status: 'OK' as const, user: toUserObject(result.user, cdiVersion), recipeUserId };
    },
  });
};

export default signInUpRoutes;
