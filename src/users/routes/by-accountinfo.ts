import type { FastifyPluginAsync } from 'fastify';
import { badInput } from '../../errors.js';
import { defineRoute } from '../../http/route.js';
import { normaliseEmail, normalisePhoneNumber } from '../../normalise/contact.js';
import type { AccountInfo } from '../listing-repository.js';
import { UsersByAccountInfoQuery, UsersListResponse } from '../schemas.js';
import { atLeastCdi4 } from './user-shape.js';
import { toUserObject } from '../user-object.js';

function parseAccountInfo(query: UsersByAccountInfoQuery): { info: AccountInfo; union: boolean } {
  const { doUnionOfAccountInfo, thirdPartyId, thirdPartyUserId } = query;
  if (doUnionOfAccountInfo !== 'true' && doUnionOfAccountInfo !== 'false') {
    throw badInput("'doUnionOfAccountInfo' should be either 'true' or 'false'");
  }
  if ((thirdPartyId === undefined) !== (thirdPartyUserId === undefined)) {
    throw badInput("If 'thirdPartyId' is provided, 'thirdPartyUserId' must also be provided, and vice versa");
  }
  const info: AccountInfo = {
    ...(query.email !== undefined && { email: normaliseEmail(query.email) }),
    ...(query.phoneNumber !== undefined && { phoneNumber: normalisePhoneNumber(query.phoneNumber) }),
    ...(thirdPartyId !== undefined && thirdPartyUserId !== undefined && { thirdParty: { id: thirdPartyId, userId: thirdPartyUserId } }),
    ...(query.webauthnCredentialId !== undefined && { webauthnCredentialId: query.webauthnCredentialId }),
  };
  return { info, union: doUnionOfAccountInfo === 'true' };
}

const byAccountInfo: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/users/by-accountinfo',
    schema: { querystring: UsersByAccountInfoQuery, response: { 200: UsersListResponse } },
    parse: ({ query }) => parseAccountInfo(query),
    scope: 'tenant',
    handle: async ({ info, union }, { tenantId, cdiVersion }) => {
      const result = await app.services.users.listUsersByAccountInfo(tenantId, info, union);
      return { status: result.status, users: result.users.map((user) => toUserObject(user, atLeastCdi4(cdiVersion))) };
    },
  });
};

export default byAccountInfo;
