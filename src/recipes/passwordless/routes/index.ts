import type { FastifyPluginAsync } from 'fastify';
import createCode from './create-code.js';
import consumeCode from './consume-code.js';
import listCodes from './list-codes.js';
import removeCodes from './remove-codes.js';
import user from './user.js';

const passwordlessRoutes: FastifyPluginAsync = async (app) => {
  await app.register(createCode);
  await app.register(consumeCode);
  await app.register(listCodes);
  await app.register(removeCodes);
  await app.register(user);
};

export default passwordlessRoutes;
