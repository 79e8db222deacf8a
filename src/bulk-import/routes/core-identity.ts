import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';
import { CoreIdentityResponse } from '../migration-support-schemas.js';

// The database's id: the migration command ties its saved progress to the core it was made against.
const coreIdentity: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/bulk-import/core-identity',
    schema: { response: { 200: CoreIdentityResponse } },
    scope: 'app',
    handle: async () => app.services.migrationSupport.coreIdentity(),
  });
};

export default coreIdentity;
