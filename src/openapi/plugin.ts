import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config/config.js';
import { defineRoute } from '../http/route.js';
import { describeRoute, type DescribedRoute } from './describe-route.js';

const description = [
  'Core Driver Interface (CDI 5.x) routes of identity-core.',
  'Every path may be prefixed with base_path, then /appid-<appId> and /<tenantId> (only the public app and tenant exist).',
  "Paths match case-insensitively and a trailing '/' is ignored. Bodies are JSON whatever the Content-Type says.",
  "A method a path does not define answers 405 'Method not supported'; an unknown path answers 404 'Not found'.",
  'Plain-text errors end with a newline.',
].join(' ');

// GET /openapi.json: the OpenAPI 3.1 document generated from the routes' TypeBox schemas, behind the API key.
export default fp(
  async (app, { config }: { config: Config }) => {
    const routes: DescribedRoute[] = [];
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'identity-core', version: '0.1.0', description },
        servers: [{ url: config.base_path || '/' }],
        components: {
          securitySchemes: {
            apiKey: { type: 'apiKey', in: 'header', name: 'api-key' },
            bearer: { type: 'http', scheme: 'bearer', description: 'The API key as a Bearer token' },
          },
        },
      },
      transform: ({ route, url }) => ({ url, ...describeRoute(route as DescribedRoute, routes) }),
    });
    app.addHook('onRoute', (route) => void routes.push(route as DescribedRoute));

    let document: string | undefined;
    defineRoute(app, {
      method: 'GET',
      url: '/openapi.json',
      schema: { response: { 200: Type.Object({}, { additionalProperties: true, description: 'This document' }) } },
      scope: 'app',
      handle: async (_input, _request, reply) => {
        document ??= JSON.stringify(app.swagger());
        return reply.type('application/json; charset=UTF-8').send(document);
      },
    });
  },
  { name: 'openapi' },
);
