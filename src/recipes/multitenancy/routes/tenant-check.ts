import type { FastifyInstance } from 'fastify';
import { coreError } from '../../../errors.js';

interface PathTenant {
  appId: string;
  tenantId: string;
}

/**
 * The tenant check of the multitenancy routes: any existing tenant may be named in the path (every other
 * tenant-scoped route still serves `public` only, src/http/route.ts), an unknown one is the usual 400.
 */
export async function assertTenantExists(app: FastifyInstance, { appId, tenantId }: PathTenant): Promise<void> {
  if (!(await tenantExists(app, { appId, tenantId }))) throw coreError('TENANT_NOT_FOUND', appId, tenantId);
}

export async function tenantExists(app: FastifyInstance, { appId, tenantId }: PathTenant): Promise<boolean> {
  return appId === 'public' && (await app.services.multitenancy.exists(tenantId));
}
