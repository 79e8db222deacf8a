import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { badInput } from '../../errors.js';
import { assertTenantScope } from '../../plugins/request-pipeline.js';
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

const byAccountInfo: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/users/by-accountinfo', {
    config: { scope: 'custom' },
    schema: { querystring: UsersByAccountInfoQuery, response: { 200: UsersListResponse } },
    handler: async (request) => {
      const { info, union } = parseAccountInfo(request.query);
      assertTenantScope(request);
      const result = await app.services.users.listUsersByAccountInfo(request.tenantId, info, union);
      return { status: result.status, users: result.users.map((user) => toUserObject(user, atLeastCdi4(request.cdiVersion))) };
    },
  });
};

export default byAccountInfo;
