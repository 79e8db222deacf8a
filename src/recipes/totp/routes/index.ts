import type { FastifyPluginAsync } from 'fastify';
import devices from './devices.js';
import verify from './verify.js';

const totpRoutes: FastifyPluginAsync = async (app) => {
  await app.register(devices);
  await app.register(verify);
};

export default totpRoutes;
