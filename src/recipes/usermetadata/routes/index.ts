import type { FastifyPluginAsync } from 'fastify';
import metadataRoutes from './metadata.js';

const userMetadataRoutes: FastifyPluginAsync = async (app) => {
  await app.register(metadataRoutes);
};

export default userMetadataRoutes;
