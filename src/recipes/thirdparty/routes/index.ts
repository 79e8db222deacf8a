import type { FastifyPluginAsync } from 'fastify';
import signInUp from './signinup.js';
import getUser from './get-user.js';
import usersByEmail from './users-by-email.js';

const thirdPartyRoutes: FastifyPluginAsync = async (app) => {
  await app.register(signInUp);
  await app.register(getUser);
  await app.register(usersByEmail);
};

export default thirdPartyRoutes;
