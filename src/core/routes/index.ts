import type { FastifyPluginAsync } from 'fastify';
import hello from './hello.js';
import apiVersion from './apiversion.js';

const coreRoutes: FastifyPluginAsync = async (app) => {
  await app.register(hello);
  await app.register(apiVersion);
};

export default coreRoutes;
