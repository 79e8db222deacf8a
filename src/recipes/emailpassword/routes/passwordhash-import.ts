import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { ImportPasswordHashBody, ImportPasswordHashResponse, TextError } from '../schemas.js';
import { toUserObject } from '../../../users/user-object.js';

const passwordHashImport: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/passwordhash/import',
    schema: { body: ImportPasswordHashBody, response: { 200: ImportPasswordHashResponse, 400: TextError, 500: TextError } },
    // The tenant check sits between the input checks and the format check (§6.1).
    parse: ({ body }) => app.services.emailPassword.checkImportInput(body),
    scope: 'tenant',
    handle: async (checked, { tenantId, cdiVersion }) => {
      const result = await app.services.emailPassword.importPasswordHash(tenantId, checked);
      return { status: result.status, user: toUserObject(result.user, cdiVersion), didUserAlreadyExist: result.didUserAlreadyExist };
    },
  });
};

export default passwordHashImport;
