import type { FastifyPluginAsync } from 'fastify';
import status from './status.js';
import pending from './pending.js';
import breaker from './breaker.js';
import canary from './canary.js';

const lazyMigrationRoutes: FastifyPluginAsync = async (app) => {
  await app.register(status);
  await app.register(pending);
  await app.register(breaker);
  await app.register(canary);
};

export default lazyMigrationRoutes;
