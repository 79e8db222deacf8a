import type { FastifyPluginAsync } from 'fastify';
import primary from './primary.js';
import link from './link.js';
import unlink from './unlink.js';

const accountLinkingRoutes: FastifyPluginAsync = async (app) => {
  await app.register(primary);
  await app.register(link);
  await app.register(unlink);
};

export default accountLinkingRoutes;
