import type { FastifyPluginAsync } from 'fastify';
import jwksRoutes from './jwks.js';
import createJwtRoute from './create.js';

const jwtRoutes: FastifyPluginAsync = async (app) => {
  await app.register(jwksRoutes);
  await app.register(createJwtRoute);
};

export default jwtRoutes;
