import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ImportUserBody, ImportUserErrors, ImportUserResponse, type WireUser } from '../../schemas/bulk-import.js';
import { toUserObject } from '../../users/user-object.js';
import type { JsonObject } from '../../bulk-import/fields.js';

// Contract §10.6: one user, imported synchronously; failures are 400 {"errors":[...]}.
const importUser: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/bulk-import/import', {
    config: { scope: 'app' },
    schema: { body: ImportUserBody, response: { 200: ImportUserResponse, 400: ImportUserErrors } },
    handler: async (request) => {
      const result = await request.server.services.bulkImport.importUser(request.body as JsonObject);
      return { status: result.status, user: toUserObject(result.user, request.cdiVersion) as WireUser };
    },
  });
};

export default importUser;
