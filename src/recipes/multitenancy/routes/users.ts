import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../../http/route.js';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { coreError, invalidField } from '../../../errors.js';
import { AnyBody, TextError } from '../schemas.js';
import { assertTenantExists } from './tenant-check.js';

const AssociateResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), wasAlreadyAssociated: Type.Boolean() }),
  Type.Object({
    status: Type.Union([
      Type.Literal('UNKNOWN_USER_ID_ERROR'),
      Type.Literal('EMAIL_ALREADY_EXISTS_ERROR'),
      Type.Literal('PHONE_NUMBER_ALREADY_EXISTS_ERROR'),
      Type.Literal('THIRD_PARTY_USER_ALREADY_EXISTS_ERROR'),
    ]),
  }),
  Type.Object({ status: Type.Literal('ASSOCIATION_NOT_ALLOWED_ERROR'), reason: Type.String() }),
]);
const DisassociateResponse = Type.Object({ status: Type.Literal('OK'), wasAssociated: Type.Boolean() });

// The body names the login method `recipeUserId` from cdi 4.0, `userId` below; a blank one is reported as `userId`
// at every version (reference quirk, contract-multitenancy T-1.1).
function userIdOf(body: Record<string, unknown>, cdiVersion: Parameters<typeof cdiAtLeast>[0]): string {
  const field = cdiAtLeast(cdiVersion, '4.0') ? 'recipeUserId' : 'userId';
  const value = body[field];
  if (typeof value !== 'string') throw invalidField(field);
  if (value.trim() === '') throw coreError('FIELD_EMPTY', 'userId');
  return value.trim();
}

const tenantUserRoutes: FastifyPluginAsync = async (app) => {
  const membership = () => app.services.multitenancy.membership;

  // M7: the login method joins the path's tenant.
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/multitenancy/tenant/user',
    schema: { body: AnyBody, response: { 200: AssociateResponse, 400: TextError } },
    scope: 'any',
    parse: ({ body, cdiVersion }) => userIdOf(body, cdiVersion),
    handle: async (userId, request) => {
      await assertTenantExists(app, request);
      return membership().associate(request.tenantId, userId);
    },
  });

  // M8: the login method leaves the path's tenant, with its sessions, roles and TOTP ledger there.
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/multitenancy/tenant/user/remove',
    schema: { body: AnyBody, response: { 200: DisassociateResponse, 400: TextError } },
    scope: 'any',
    parse: ({ body, cdiVersion }) => userIdOf(body, cdiVersion),
    handle: async (userId, request) => {
      await assertTenantExists(app, request);
      return membership().disassociate(request.tenantId, userId);
    },
  });
};

export default tenantUserRoutes;
