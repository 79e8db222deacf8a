import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';
import { CheckPasswordHashBody, CheckPasswordHashResponse } from '../migration-support-schemas.js';

// Whether a password matches a hash as the core would import it, storing nothing: the migration command's check of
// the core's signer key and hash parameters against an export's, before it sends a single user.
const checkPasswordHash: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/bulk-import/password-hash/check',
    schema: { body: CheckPasswordHashBody, response: { 200: CheckPasswordHashResponse } },
    scope: 'app',
    handle: async ({ body }) => app.services.migrationSupport.checkPasswordHash(body),
  });
};

export default checkPasswordHash;
