import type { FastifyPluginAsync } from 'fastify';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { defineRoute, type LoginRecipe } from '../../../http/route.js';
import { coreError, invalidField } from '../../../errors.js';
import {
  AnyBody,
  CreatedResponse,
  LegacyTenantResponse,
  RemoveTenantResponse,
  TenantListResponse,
  TenantV2Response,
  TextError,
} from '../schemas.js';
import type { Tenant } from '../service.js';
import { enabledByFactors } from '../login-gate.js';
import { parseTenantUpdate } from '../tenant-input.js';
import { normaliseTenantId, PUBLIC_TENANT } from '../tenant-id.js';
import { assertTenantExists, tenantExists } from './tenant-check.js';

// The older answer's per-recipe switches, read from firstFactors.
const enabled = (tenant: Tenant, recipe: LoginRecipe) => ({ enabled: enabledByFactors(tenant.firstFactors, recipe) });

const tenantRoutes: FastifyPluginAsync<{ knownRoutes: ReadonlySet<string> }> = async (app, { knownRoutes }) => {
  const multitenancy = () => app.services.multitenancy;

  // M1: the SDK asks this before every third-party call; an unknown tenant is a 200 status, not a 400.
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/multitenancy/tenant/v2',
    schema: { response: { 200: TenantV2Response } },
    scope: 'any',
    handle: async (_input, request) => {
      const tenant = (await tenantExists(app, request)) ? await multitenancy().getTenant(request.tenantId) : undefined;
      return tenant ? { ...tenant, status: 'OK' as const } : { status: 'TENANT_NOT_FOUND_ERROR' as const };
    },
  });

  // M9 (deprecated): the cdi 5.0 and older shape.
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/multitenancy/tenant',
    schema: { response: { 200: LegacyTenantResponse } },
    scope: 'any',
    handle: async (_input, request) => {
      const tenant = (await tenantExists(app, request)) ? await multitenancy().getTenant(request.tenantId) : undefined;
      if (!tenant) return { status: 'TENANT_NOT_FOUND_ERROR' as const };
      const withFactors = cdiAtLeast(request.cdiVersion, '5.0');
      return {
        tenantId: tenant.tenantId,
        emailPassword: enabled(tenant, 'emailpassword'),
        thirdParty: { ...enabled(tenant, 'thirdparty'), providers: tenant.thirdParty.providers },
        passwordless: enabled(tenant, 'passwordless'),
        ...(withFactors && tenant.firstFactors && { firstFactors: tenant.firstFactors }),
        ...(withFactors && tenant.requiredSecondaryFactors && { requiredSecondaryFactors: tenant.requiredSecondaryFactors }),
        coreConfig: tenant.coreConfig,
        status: 'OK' as const,
      };
    },
  });

  // M2: the path names the source tenant (public when absent), the body the tenant created or updated.
  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/multitenancy/tenant/v2',
    schema: { body: AnyBody, response: { 200: CreatedResponse, 400: TextError, 403: TextError } },
    scope: 'any',
    parse: ({ body }) => parseTenantUpdate(body, knownRoutes),
    handle: async (update, request) => {
      await assertTenantExists(app, request);
      if (request.tenantId !== PUBLIC_TENANT && request.tenantId !== update.tenantId) throw coreError('TENANT_SOURCE_FORBIDDEN');
      return multitenancy().createOrUpdate(update);
    },
  });

  // M3: removes the tenant's configuration and providers.
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/multitenancy/tenant/remove',
    schema: { body: AnyBody, response: { 200: RemoveTenantResponse, 400: TextError, 403: TextError } },
    scope: 'any',
    parse: ({ body }) => {
      if (typeof body.tenantId !== 'string') throw invalidField('tenantId');
      return normaliseTenantId(body.tenantId, knownRoutes);
    },
    handle: async (tenantId, request) => {
      await assertTenantExists(app, request);
      if (request.tenantId !== PUBLIC_TENANT) throw coreError('TENANT_REMOVE_PUBLIC_ONLY');
      if (tenantId === PUBLIC_TENANT) throw coreError('PUBLIC_TENANT_UNDELETABLE');
      return multitenancy().removeTenant(tenantId);
    },
  });

  // M4: every tenant, public first, then in creation order.
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/multitenancy/tenant/list/v2',
    schema: { response: { 200: TenantListResponse, 400: TextError, 403: TextError } },
    scope: 'any',
    handle: async (_input, request) => {
      await assertTenantExists(app, request);
      if (request.tenantId !== PUBLIC_TENANT) throw coreError('TENANT_LIST_PUBLIC_ONLY');
      return { status: 'OK' as const, tenants: await multitenancy().listTenants() };
    },
  });
};

export default tenantRoutes;
