import type { FastifyPluginAsync } from 'fastify';
import userById from './user-id.js';
import byAccountInfo from './by-accountinfo.js';
import usersCount from './count.js';
import usersPage from './list.js';
import removeUser from './remove.js';

const userRoutes: FastifyPluginAsync = async (app) => {
  await app.register(userById);
  await app.register(byAccountInfo);
  await app.register(usersCount);
  await app.register(usersPage);
  await app.register(removeUser);
};

export default userRoutes;
