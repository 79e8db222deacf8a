import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/route.js';
import { coreError } from '../../errors.js';
import { PendingQuery, PendingResponse } from '../schemas.js';

const MAX_PENDING_PAGE = 1000;

const pending: FastifyPluginAsync = async (app) => {
  // The reset-campaign list: a source's pending users, a page at a time.
  defineRoute(app, {
    method: 'GET',
    url: '/lazy-migration/pending',
    schema: { querystring: PendingQuery, response: { 200: PendingResponse, 400: Type.String() } },
    parse: ({ query }) => {
      const limit = query.limit === undefined ? 500 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PENDING_PAGE) {
        throw coreError('PENDING_LIMIT_OUT_OF_RANGE', MAX_PENDING_PAGE);
      }
      let after: string | undefined;
      if (query.paginationToken !== undefined) {
        after = Buffer.from(query.paginationToken, 'base64url').toString('utf8');
        if (after === '' || Buffer.from(after, 'utf8').toString('base64url') !== query.paginationToken)
          throw coreError('INVALID_PAGINATION_TOKEN');
      }
      return { source: query.source, limit, after };
    },
    scope: 'app',
    handle: async ({ source, limit, after }) => {
      const { users, next } = await app.services.lazyMigration.pending(source, limit, after);
      return {
        status: 'OK' as const,
        users,
        ...(next !== undefined && { nextPaginationToken: Buffer.from(next, 'utf8').toString('base64url') }),
      };
    },
  });
};

export default pending;
