import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';
import { StatusResponse } from '../schemas.js';

const status: FastifyPluginAsync = async (app) => {
  // Progress per source and day: tokens exchanged, distinct users, refusals by cause (summed over every instance).
  defineRoute(app, {
    method: 'GET',
    url: '/session-bridge/status',
    schema: { response: { 200: StatusResponse } },
    scope: 'app',
    handle: async () => ({ status: 'OK' as const, sources: await app.services.sessionBridge.progress() }),
  });
};

export default status;
