import type { FastifyPluginAsync } from 'fastify';
import { badInput } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
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
const getUser: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/user',
    constraints: { rid: 'thirdparty' },
    schema: { querystring: GetThirdPartyUserQuery, response: { 200: GetThirdPartyUserResponse } },
    parse: ({ query }) => parseLookup(query),
    scope: (lookup) => ('userId' in lookup ? 'app' : 'tenant'),
    handle: async (lookup, { tenantId, cdiVersion }) => {
      const result =
        'userId' in lookup
          ? await app.services.thirdParty.findUser(lookup.userId)
          : await app.services.thirdParty.findUserByThirdPartyId(tenantId, lookup.thirdPartyId, lookup.thirdPartyUserId);
      return result.status === 'OK' ? { status: result.status, user: toUserObject(result.user, cdiVersion) } : result;
    },
  });
};

export default getUser;
