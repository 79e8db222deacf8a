import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';
import { ImportUserBody, ImportUserErrors, ImportUserResponse } from '../schemas.js';
import type { WireUser } from '../../http/schemas.js';
import { toUserObject } from '../../users/user-object.js';
import type { JsonObject } from '../fields.js';
import { countWeakHashes } from '../weak-hashes.js';

// Contract §10.6: one user, imported synchronously; failures are 400 {"errors":[...]}.
const importUser: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/bulk-import/import',
    schema: { body: ImportUserBody, response: { 200: ImportUserResponse, 400: ImportUserErrors } },
    scope: 'app',
    handle: async ({ body, cdiVersion }, _request, reply) => {
      const result = await app.services.bulkImport.importUser(body as JsonObject);
      const weakHashes = countWeakHashes([body as JsonObject], reply.log);
      return { status: result.status, user: toUserObject(result.user, cdiVersion) as WireUser, ...(weakHashes > 0 && { weakHashes }) };
    },
  });
};

export default importUser;
