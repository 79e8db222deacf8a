import type { FastifyPluginAsync } from 'fastify';
import devices from './devices.js';
import verify from './verify.js';
import recoveryCodes from './recovery-codes.js';

const totpRoutes: FastifyPluginAsync = async (app) => {
  await app.register(devices);
  await app.register(verify);
  await app.register(recoveryCodes);
};

export default totpRoutes;
