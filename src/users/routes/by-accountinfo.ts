import type { FastifyPluginAsync } from 'fastify';
import { coreError } from '../../errors.js';
import { defineRoute } from '../../http/route.js';
import { contactLookup } from '../../normalise/contact.js';
import type { AccountInfo } from '../listing-repository.js';
import { UsersByAccountInfoQuery, UsersListResponse } from '../schemas.js';
import { atLeastCdi4 } from './user-shape.js';
import { toUserObject } from '../user-object.js';

function parseAccountInfo(query: UsersByAccountInfoQuery): { info: AccountInfo; union: boolean } {
  const { doUnionOfAccountInfo, thirdPartyId, thirdPartyUserId } = query;
  if (doUnionOfAccountInfo !== 'true' && doUnionOfAccountInfo !== 'false') {
    throw coreError('FLAG_NOT_BOOLEAN', 'doUnionOfAccountInfo');
  }
  if ((thirdPartyId === undefined) !== (thirdPartyUserId === undefined)) {
    throw coreError('THIRD_PARTY_PAIR');
  }
  const email = query.email === undefined ? undefined : contactLookup('email', query.email);
  const phoneNumber = query.phoneNumber === undefined ? undefined : contactLookup('phoneNumber', query.phoneNumber);
  const info: AccountInfo = {
    ...(email && { email: email.keys }),
    ...(phoneNumber && { phoneNumber: phoneNumber.keys }),
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
