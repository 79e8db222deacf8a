import type { FastifyPluginAsync } from 'fastify';
import roleRoutes from './roles.js';
import userRoleRoutes from './user-roles.js';

const userRolesRoutes: FastifyPluginAsync = async (app) => {
  await app.register(roleRoutes);
  await app.register(userRoleRoutes);
};

export default userRolesRoutes;
