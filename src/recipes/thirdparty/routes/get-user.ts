import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { badInput } from '../../../errors.js';
import { assertAppScope, assertTenantScope } from '../../../plugins/request-pipeline.js';
import { toUserObject } from '../../../users/user-object.js';
import { GetThirdPartyUserQuery, GetThirdPartyUserResponse } from '../schemas.js';

type Lookup = { userId: string } | { thirdPartyId: string; thirdPartyUserId: string };

function parseLookup({ userId, thirdPartyId, thirdPartyUserId }: GetThirdPartyUserQuery): Lookup {
  if (userId !== undefined && (thirdPartyId !== undefined || thirdPartyUserId !== undefined)) {
    throw badInput('Please provide only one of userId or (thirdPartyId & thirdPartyUserId)');
  }
  if (userId !== undefined) return { userId };
  if (thirdPartyId === undefined || thirdPartyUserId === undefined) {
    throw badInput('Please provide one of userId or (thirdPartyId & thirdPartyUserId)');
  }
  return { thirdPartyId, thirdPartyUserId };
}

// Deprecated GET /recipe/user for rid: thirdparty. By user id it is app-scoped, by provider account tenant-scoped.
const getUser: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/recipe/user', {
    constraints: { rid: 'thirdparty' },
    config: { scope: 'custom' },
    schema: { querystring: GetThirdPartyUserQuery, response: { 200: GetThirdPartyUserResponse } },
    handler: async (request) => {
      const lookup = parseLookup(request.query);
      if ('userId' in lookup) assertAppScope(request);
      else assertTenantScope(request);
      const result =
        'userId' in lookup
          ? await app.services.thirdParty.findUser(lookup.userId)
          : await app.services.thirdParty.findUserByThirdPartyId(request.tenantId, lookup.thirdPartyId, lookup.thirdPartyUserId);
      return result.status === 'OK' ? { status: result.status, user: toUserObject(result.user, request.cdiVersion) } : result;
    },
  });
};

export default getUser;
