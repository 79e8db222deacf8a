import fp from 'fastify-plugin';
import type { Config } from '../config/config.js';
import { defineRoute } from '../http/route.js';
import type { CoreMetrics } from './metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: CoreMetrics;
  }
}

// Counts and times every answer by route template, and serves GET /metrics behind the API key, unless
// metrics_port moves it to a port of its own (see metrics-server.ts).
export default fp(
  async (app, { config, metrics }: { config: Config; metrics: CoreMetrics }) => {
    app.decorate('metrics', metrics);
    app.addHook('onResponse', async (request, reply) => {
      const route = request.is404 ? undefined : request.routeOptions.url;
      metrics.requestAnswered(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    });
    if (config.metrics_port !== undefined) return;
    defineRoute(app, {
      method: 'GET',
      url: '/metrics',
      schema: {},
      scope: 'app',
      handle: async (_input, _request, reply) => reply.type(metrics.contentType).send(await metrics.exposition()),
    });
  },
  { name: 'metrics' },
);
