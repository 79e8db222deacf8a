import type { FastifyPluginAsync } from 'fastify';
import verificationTokens from './token.js';
import verify from './verify.js';

const emailVerificationRoutes: FastifyPluginAsync = async (app) => {
  await app.register(verificationTokens);
  await app.register(verify);
};

export default emailVerificationRoutes;
