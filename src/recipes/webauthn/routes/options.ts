import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { requiredQuery } from '../../../http/query.js';
import { coreError } from '../../../errors.js';
import {
  OptionsIdQuery,
  RegisterOptionsBody,
  RegisterOptionsResponse,
  RemoveOptionsResponse,
  SignInOptionsBody,
  SignInOptionsResponse,
  StoredOptionsResponse,
  TextError,
} from '../schemas.js';

const optionsRoutes: FastifyPluginAsync = async (app) => {
  const webauthn = () => app.services.webauthn;

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/webauthn/options/register',
    schema: { body: RegisterOptionsBody, response: { 200: RegisterOptionsResponse, 400: TextError } },
    parse: ({ body }) => {
      if (body.email === undefined && body.recoverAccountToken === undefined) throw coreError('INVALID_FIELD', 'email');
      const { supportedAlgorithmIDs, ...rest } = body;
      return { ...rest, supportedAlgorithmIds: body.supportedAlgorithmIds ?? supportedAlgorithmIDs };
    },
    scope: 'tenant',
    handle: async (input, { tenantId }) => webauthn().registerOptions(tenantId, input),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/webauthn/options/signin',
    schema: { body: SignInOptionsBody, response: { 200: SignInOptionsResponse, 400: TextError } },
    scope: 'tenant',
    handle: async ({ body }, { tenantId }) => webauthn().signInOptions(tenantId, body),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/webauthn/options',
    schema: { querystring: OptionsIdQuery, response: { 200: StoredOptionsResponse, 400: TextError } },
    parse: ({ query }) => requiredQuery(query, 'webauthnGeneratedOptionsId'),
    scope: 'tenant',
    handle: async (id, { tenantId }) => webauthn().getOptions(tenantId, id),
  });

  defineRoute(app, {
    method: 'DELETE',
    url: '/recipe/webauthn/options/remove',
    schema: { querystring: OptionsIdQuery, response: { 200: RemoveOptionsResponse, 400: TextError } },
    parse: ({ query }) => requiredQuery(query, 'webauthnGeneratedOptionsId'),
    scope: 'tenant',
    handle: async (id, { tenantId }) => webauthn().removeOptions(tenantId, id),
  });
};

export default optionsRoutes;
