import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';

// Answers "Hello" once the database answers a trivial query; a database failure is a 500.
const hello: FastifyPluginAsync = async (app) => {
  // /hello never reads its body, so a malformed one must not turn it into a 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  for (const url of ['/hello', '/']) {
    defineRoute(app, {
      method: ['GET', 'POST', 'PUT', 'DELETE'],
      url,
      schema: {},
      scope: 'any',
      handle: async (_input, _request, reply) => {
        await app.services.health.check();
        return reply.type('text/html; charset=UTF-8').send('Hello\n');
      },
    });
  }
};

export default hello;
