import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { invalidField } from '../../../errors.js';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { assertAppScope, assertTenantScope } from '../../../plugins/request-pipeline.js';
import { parseUserLookup } from './request-inputs.js';
import { GetUserQuery, GetUserResponse, UpdateUserBody, UpdateUserResponse } from '../schemas.js';
import { toUserObject } from '../../../users/user-object.js';

// GET and PUT /recipe/user reach these handlers only with the header `rid: passwordless` (src/http/rid-constraint.ts).
const user: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/recipe/user', {
    constraints: { rid: 'passwordless' },
    config: { scope: 'custom' },
    schema: { querystring: GetUserQuery, response: { 200: GetUserResponse } },
    handler: async (request) => {
      const lookup = parseUserLookup(request.query);
      // By id the user is looked up app-wide; by email or phone number within the tenant (contract §1.2).
      if (lookup.kind === 'userId') assertAppScope(request);
      else assertTenantScope(request);
      const result = await app.services.passwordless.findUser(request.tenantId, lookup);
      return result.status === 'OK' ? { status: result.status, user: toUserObject(result.user, request.cdiVersion) } : result;
    },
  });

  app.put('/recipe/user', {
    constraints: { rid: 'passwordless' },
    config: { scope: 'custom' },
    schema: { body: UpdateUserBody, response: { 200: UpdateUserResponse } },
    handler: async (request) => {
      const { recipeUserId, userId, email, phoneNumber } = request.body;
      // userId is accepted at every version because migration runbooks send it without a cdi-version (contract §5.8).
      const id = recipeUserId ?? userId;
      if (id === undefined) throw invalidField(cdiAtLeast(request.cdiVersion, '4.0') ? 'recipeUserId' : 'userId');
      assertAppScope(request);
      return app.services.passwordless.updateUser({ id, email, phoneNumber });
    },
  });
};

export default user;
