import type { FastifyPluginAsync } from 'fastify';
import session from './session.js';
import tenantInfo from './tenant-info.js';
import users from './users.js';

const dashboardRoutes: FastifyPluginAsync = async (app) => {
  await app.register(session);
  await app.register(users);
  await app.register(tenantInfo);
};

export default dashboardRoutes;
