import type { FastifyPluginAsync } from 'fastify';
import { badInput } from '../../errors.js';
import { defineRoute } from '../../http/route.js';
import { contactLookup, type ContactLookup } from '../../normalise/contact.js';
import type { AccountInfo } from '../listing-repository.js';
import { UsersByAccountInfoQuery, UsersListResponse } from '../schemas.js';
import { atLeastCdi4 } from './user-shape.js';
import { toUserObject } from '../user-object.js';

function parseAccountInfo(query: UsersByAccountInfoQuery): { info: AccountInfo; union: boolean; lookups: ContactLookup[] } {
  const { doUnionOfAccountInfo, thirdPartyId, thirdPartyUserId } = query;
  if (doUnionOfAccountInfo !== 'true' && doUnionOfAccountInfo !== 'false') {
    throw badInput("'doUnionOfAccountInfo' should be either 'true' or 'false'");
  }
  if ((thirdPartyId === undefined) !== (thirdPartyUserId === undefined)) {
    throw badInput("If 'thirdPartyId' is provided, 'thirdPartyUserId' must also be provided, and vice versa");
  }
  const email = query.email === undefined ? undefined : contactLookup('email', query.email);
  const phoneNumber = query.phoneNumber === undefined ? undefined : contactLookup('phoneNumber', query.phoneNumber);
  const info: AccountInfo = {
    ...(email && { email: email.keys }),
    ...(phoneNumber && { phoneNumber: phoneNumber.keys }),
    ...(thirdPartyId !== undefined && thirdPartyUserId !== undefined && { thirdParty: { id: thirdPartyId, userId: thirdPartyUserId } }),
    ...(query.webauthnCredentialId !== undefined && { webauthnCredentialId: query.webauthnCredentialId }),
  };
  const lookups = [email, phoneNumber].filter((lookup) => lookup !== undefined);
  return { info, union: doUnionOfAccountInfo === 'true', lookups };
}

const byAccountInfo: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/users/by-accountinfo',
    schema: { querystring: UsersByAccountInfoQuery, response: { 200: UsersListResponse } },
    parse: ({ query }) => parseAccountInfo(query),
    scope: 'tenant',
    handle: async ({ info, union, lookups }, { tenantId, cdiVersion }) => {
      const result = await app.services.users.listUsersByAccountInfo(tenantId, info, union);
      // A refused email or phone number that matches no row stored earlier is an error, not an empty answer.
      const refusal = lookups.find((lookup) => lookup.refusal)?.refusal;
      if (result.users.length === 0 && refusal) throw refusal;
      return { status: result.status, users: result.users.map((user) => toUserObject(user, atLeastCdi4(cdiVersion))) };
    },
  });
};

export default byAccountInfo;
