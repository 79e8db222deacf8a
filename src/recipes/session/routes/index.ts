import type { FastifyPluginAsync } from 'fastify';
import createSession from './create.js';
import refreshSession from './refresh.js';
import regenerate from './regenerate.js';
import revoke from './revoke.js';
import sessionInfo from './session-info.js';
import verifySession from './verify.js';

const sessionRoutes: FastifyPluginAsync = async (app) => {
  await app.register(createSession);
  await app.register(verifySession);
  await app.register(refreshSession);
  await app.register(regenerate);
  await app.register(sessionInfo);
  await app.register(revoke);
};

export default sessionRoutes;
