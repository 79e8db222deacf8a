import type { FastifyRequest } from 'fastify';
import { coreError } from '../../../errors.js';
import { cdiAtLeast } from '../../../http/cdi-version.js';

// [DEVIATION] S-1: sessions and JWTs are served from cdi 2.21 (legacy v1/v2 tokens are not).
export async function requireSessionCdi(request: FastifyRequest): Promise<void> {
  if (!cdiAtLeast(request.cdiVersion, '2.21')) throw coreError('CDI_VERSION_NOT_SUPPORTED', request.cdiVersion.text);
}

/** Routes whose tenant comes from the token or handle: the path's tenant segment is ignored, its app must exist. */
export function assertAppExists(request: { appId: string; tenantId: string }): void {
  if (request.appId !== 'public') throw coreError('TENANT_NOT_FOUND', request.appId, request.tenantId);
}

/** A boolean field the contract checks after the app/tenant check; absent gives undefined. */
export function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw coreError('INVALID_FIELD', field);
  return value;
}
