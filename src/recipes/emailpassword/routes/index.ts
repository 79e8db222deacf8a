import type { FastifyPluginAsync } from 'fastify';
import passwordHashImport from './passwordhash-import.js';
import passwordReset from './password-reset.js';
import signIn from './signin.js';
import signUp from './signup.js';
import user from './user.js';

const emailPasswordRoutes: FastifyPluginAsync = async (app) => {
  await app.register(passwordHashImport);
  await app.register(passwordReset);
  await app.register(signIn);
  await app.register(signUp);
  await app.register(user);
};

export default emailPasswordRoutes;
