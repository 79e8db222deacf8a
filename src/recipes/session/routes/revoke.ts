import type { FastifyPluginAsync } from 'fastify';
import { coreError } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
import { RemoveSessionsBody, RemoveSessionsResponse, TextError, UserSessionsQuery, UserSessionsResponse } from '../schemas.js';
import { requireSessionCdi } from './cdi.js';

// S-4.7: an absent flag is true; a given one is true only when it says `true` in any case.
const flag = (value: string | undefined) => value === undefined || value.toLowerCase() === 'true';

// S-4.6, S-4.7: by handles, or by user across tenants (app-wide, 403 for another tenant from cdi 5.0) or in the
// path's tenant; with linked accounts, every login method of the user's group.
const revoke: FastifyPluginAsync = async (app) => {
  const { session } = app.services;

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/session/remove',
    schema: { body: RemoveSessionsBody, response: { 200: RemoveSessionsResponse, 400: TextError } },
    preValidation: requireSessionCdi,
    parse: ({ body }) => {
      if ((body.userId === undefined) === (body.sessionHandles === undefined)) throw coreError('SESSION_REMOVE_ONE_OF');
      if (body.userId === undefined) {
        if (body.revokeAcrossAllTenants !== undefined) throw coreError('SESSION_REMOVE_FLAG_WITHOUT_USER', 'revokeAcrossAllTenants');
        if (body.revokeSessionsForLinkedAccounts !== undefined) {
          throw coreError('SESSION_REMOVE_FLAG_WITHOUT_USER', 'revokeSessionsForLinkedAccounts');
        }
      }
      return { ...body, acrossTenants: body.revokeAcrossAllTenants ?? true, linked: body.revokeSessionsForLinkedAccounts ?? true };
    },
    scope: (input) => (input.userId !== undefined && !input.acrossTenants ? 'tenant' : 'app'),
    handle: async (input, { tenantId }) => {
      const revoked =
        input.userId === undefined
          ? await session.revokeByHandles(input.sessionHandles!)
          : await session.revokeByUser(input.userId, input.linked, input.acrossTenants ? undefined : tenantId);
      return { status: 'OK' as const, sessionHandlesRevoked: revoked };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/session/user',
    schema: { querystring: UserSessionsQuery, response: { 200: UserSessionsResponse, 400: TextError } },
    preValidation: requireSessionCdi,
    parse: ({ query }) => ({
      userId: query.userId,
      linked: flag(query.fetchSessionsForAllLinkedAccounts),
      acrossTenants: flag(query.fetchAcrossAllTenants),
    }),
    scope: (input) => (input.acrossTenants ? 'app' : 'tenant'),
    handle: async (input, { tenantId }) => ({
      status: 'OK' as const,
      sessionHandles: await session.handlesOfUser(input.userId, input.linked, input.acrossTenants ? undefined : tenantId),
    }),
  });
};

export default revoke;
