import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';
import { StatusResponse } from '../schemas.js';

const status: FastifyPluginAsync = async (app) => {
  // Pending users per source, adoptions so far, answers by cause since start, breaker state and deadline.
  defineRoute(app, {
    method: 'GET',
    url: '/lazy-migration/status',
    schema: { response: { 200: StatusResponse } },
    scope: 'app',
    handle: async () => ({
      status: 'OK' as const,
      enabled: app.services.config.lazy_migration.enabled,
      sources: await app.services.lazyMigration.progress(),
    }),
  });
};

export default status;
