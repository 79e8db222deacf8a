import type { FastifyPluginAsync } from 'fastify';
import credentials from './credentials.js';
import options from './options.js';
import recover from './recover.js';
import signInUp from './sign-in-up.js';

const webauthnRoutes: FastifyPluginAsync = async (app) => {
  await app.register(options);
  await app.register(signInUp);
  await app.register(credentials);
  await app.register(recover);
};

export default webauthnRoutes;
