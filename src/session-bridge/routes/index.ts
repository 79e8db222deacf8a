import type { FastifyPluginAsync } from 'fastify';
import exchange from './exchange.js';
import status from './status.js';

const sessionBridgeRoutes: FastifyPluginAsync = async (app) => {
  await app.register(exchange);
  await app.register(status);
};

export default sessionBridgeRoutes;
