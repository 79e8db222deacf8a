import type { FastifyPluginAsync } from 'fastify';
import addUsers from './add-users.js';
import queueRoutes from './queue.js';
import importUser from './import-user.js';
import coreIdentity from './core-identity.js';
import lookupUsers from './lookup-users.js';
import completeUsers from './complete-users.js';
import checkPasswordHash from './check-password-hash.js';

const routes: FastifyPluginAsync = async (app) => {
  await app.register(addUsers);
  await app.register(queueRoutes);
  await app.register(importUser);
  await app.register(coreIdentity);
  await app.register(lookupUsers);
  await app.register(completeUsers);
  await app.register(checkPasswordHash);
};

export default routes;
