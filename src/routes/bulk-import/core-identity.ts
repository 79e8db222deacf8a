import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CoreIdentityResponse } from '../../schemas/migration-support.js';

// The database's id: the migration command ties its saved progress to the core it was made against.
const coreIdentity: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/bulk-import/core-identity', {
    config: { scope: 'app' },
    schema: { response: { 200: CoreIdentityResponse } },
    handler: async () => app.services.migrationSupport.coreIdentity(),
  });
};

export default coreIdentity;
