import type { FastifyPluginAsync } from 'fastify';
import createMapping from './create.js';
import getMapping from './get.js';
import removeMapping from './remove.js';
import externalUserIdInfo from './external-user-id-info.js';

const userIdMappingRoutes: FastifyPluginAsync = async (app) => {
  await app.register(createMapping);
  await app.register(getMapping);
  await app.register(removeMapping);
  await app.register(externalUserIdInfo);
};

export default userIdMappingRoutes;
