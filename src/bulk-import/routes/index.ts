import type { FastifyPluginAsync } from 'fastify';
import addUsers from './add-users.js';
import queueRoutes from './queue.js';
import importUser from './import-user.js';

const routes: FastifyPluginAsync = async (app) => {
  await app.register(addUsers);
  await app.register(queueRoutes);
  await app.register(importUser);
};

export default routes;
