import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { parseCreateCode } from './request-inputs.js';
import { CreateCodeBody, CreateCodeResponse } from '../schemas.js';

const createCode: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/signinup/code',
    schema: { body: CreateCodeBody, response: { 200: CreateCodeResponse } },
    parse: ({ body }) => parseCreateCode(body),
    scope: 'tenant',
    loginRecipe: 'passwordless',
    handle: async ({ target, userInputCode }, { tenantId }) => app.services.passwordless.createCode(tenantId, target, userInputCode),
  });
};

export default createCode;
