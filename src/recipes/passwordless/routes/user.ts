import type { FastifyPluginAsync } from 'fastify';
import { invalidField } from '../../../errors.js';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { defineRoute } from '../../../http/route.js';
import { parseUserLookup } from './request-inputs.js';
import { GetUserQuery, GetUserResponse, UpdateUserBody, UpdateUserResponse } from '../schemas.js';
import { toUserObject } from '../../../users/user-object.js';

// GET and PUT /recipe/user reach these handlers only with the header `rid: passwordless` (src/http/rid-constraint.ts).
const user: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/user',
    constraints: { rid: 'passwordless' },
    schema: { querystring: GetUserQuery, response: { 200: GetUserResponse } },
    parse: ({ query }) => parseUserLookup(query),
    // By id the user is looked up app-wide; by email or phone number within the tenant (contract §1.2).
    scope: (lookup) => (lookup.kind === 'userId' ? 'app' : 'tenant'),
    handle: async (lookup, { tenantId, cdiVersion }) => {
      const result = await app.services.passwordless.findUser(tenantId, lookup);
      return result.status === 'OK' ? { status: result.status, user: toUserObject(result.user, cdiVersion) } : result;
    },
  });

  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/user',
    constraints: { rid: 'passwordless' },
    schema: { body: UpdateUserBody, response: { 200: UpdateUserResponse } },
    parse: ({ body, cdiVersion }) => {
      const { recipeUserId, userId, email, phoneNumber } = body;
      // userId is accepted at every version because migration runbooks send it without a cdi-version (contract §5.8).
      const id = recipeUserId ?? userId;
      if (id === undefined) throw invalidField(cdiAtLeast(cdiVersion, '4.0') ? 'recipeUserId' : 'userId');
      return { id, email, phoneNumber };
    },
    scope: 'app',
    handle: async (update) => app.services.passwordless.updateUser(update),
  });
};

export default user;
