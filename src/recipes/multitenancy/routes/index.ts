import type { FastifyPluginAsync } from 'fastify';
import tenants from './tenants.js';
import thirdParty from './thirdparty.js';
import tenantUsers from './users.js';

/** Tenants as configuration and their third-party providers (docs/organizations.md). */
const multitenancyRoutes: FastifyPluginAsync<{ knownRoutes: ReadonlySet<string> }> = async (app, options) => {
  await app.register(tenants, options);
  await app.register(thirdParty);
  await app.register(tenantUsers);
};

export default multitenancyRoutes;
