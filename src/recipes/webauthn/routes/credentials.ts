import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { requiredQuery } from '../../../http/query.js';
import {
  CredentialListResponse,
  CredentialQuery,
  CredentialResponse,
  RegisterCredentialBody,
  RegisterCredentialResponse,
  RemoveCredentialResponse,
  TextError,
} from '../schemas.js';

// App-scoped, as the reference's are; a recipeUserId is answered as it was given (internal or external).
const credentialRoutes: FastifyPluginAsync = async (app) => {
  const webauthn = () => app.services.webauthn;

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/webauthn/user/credential/register',
    schema: { body: RegisterCredentialBody, response: { 200: RegisterCredentialResponse, 400: TextError } },
    scope: 'app',
    handle: async ({ body }, { cdiVersion }) => {
      const result = await webauthn().registerCredential(cdiVersion, body.recipeUserId, body.webauthnGeneratedOptionsId, body.credential);
      if (result.status !== 'OK') return result;
      return {
        status: 'OK' as const,
        webauthnCredentialId: result.credential.credential_id,
        recipeUserId: body.recipeUserId,
        email: result.email,
        relyingPartyId: result.options.rp_id,
        relyingPartyName: result.options.rp_name,
      };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/webauthn/user/credential',
    schema: { querystring: CredentialQuery, response: { 200: CredentialResponse, 400: TextError } },
    parse: ({ query }) => ({
      webauthnCredentialId: requiredQuery(query, 'webauthnCredentialId'),
      recipeUserId: requiredQuery(query, 'recipeUserId'),
    }),
    scope: 'app',
    handle: async ({ webauthnCredentialId, recipeUserId }) => {
      const found = await webauthn().getCredential(recipeUserId, webauthnCredentialId);
      if (!found) return { status: 'CREDENTIAL_NOT_FOUND_ERROR' as const };
      return {
        status: 'OK' as const,
        webauthnCredentialId: found.credential_id,
        recipeUserId,
        relyingPartyId: found.rp_id,
        createdAt: found.created_at,
        updatedAt: found.last_used_at ?? found.created_at,
      };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/webauthn/user/credential/list',
    schema: { querystring: CredentialQuery, response: { 200: CredentialListResponse, 400: TextError } },
    parse: ({ query }) => requiredQuery(query, 'recipeUserId'),
    scope: 'app',
    handle: async (recipeUserId) => ({
      status: 'OK' as const,
      credentials: (await webauthn().listCredentials(recipeUserId)).map((row) => ({
        webauthnCredentialId: row.credential_id,
        recipeUserId,
        relyingPartyId: row.rp_id,
        createdAt: row.created_at,
      })),
    }),
  });

  defineRoute(app, {
    method: 'DELETE',
    url: '/recipe/webauthn/user/credential/remove',
    schema: { querystring: CredentialQuery, response: { 200: RemoveCredentialResponse, 400: TextError } },
    parse: ({ query }) => ({
      recipeUserId: requiredQuery(query, 'recipeUserId'),
      webauthnCredentialId: requiredQuery(query, 'webauthnCredentialId'),
    }),
    scope: 'app',
    handle: async ({ recipeUserId, webauthnCredentialId }) => ({
      status: (await webauthn().removeCredential(recipeUserId, webauthnCredentialId))
        ? ('OK' as const)
        : ('CREDENTIAL_NOT_FOUND_ERROR' as const),
    }),
  });
};

export default credentialRoutes;
