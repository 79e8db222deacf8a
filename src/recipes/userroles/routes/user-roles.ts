import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { requiredQuery } from '../../../http/query.js';
import { OptionalQuery } from '../../../http/schemas.js';
import {
  AddUserRoleResponse,
  RemoveUserRoleResponse,
  roleName,
  RolesResponse,
  TextError,
  UserRoleBody,
  UsersResponse,
} from '../schemas.js';

// Assignments are per tenant (contract M-4.1); the user id is an opaque key, never trimmed or looked up.
const userRoleRoutes: FastifyPluginAsync = async (app) => {
  const roles = () => app.services.userRoles;
  const assignment = (request: { body: { userId: string; role: string }; tenantId: string }) => ({
    userId: request.body.userId,
    role: roleName(request.body.role, 'role'),
    tenantId: request.tenantId,
  });

  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/user/role',
    schema: { body: UserRoleBody, response: { 200: AddUserRoleResponse, 400: TextError } },
    parse: assignment,
    scope: 'tenant',
    handle: async ({ userId, role, tenantId }) => roles().addRoleToUser(tenantId, userId, role),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/role/remove',
    schema: { body: UserRoleBody, response: { 200: RemoveUserRoleResponse, 400: TextError } },
    parse: assignment,
    scope: 'tenant',
    handle: async ({ userId, role, tenantId }) => roles().removeRoleFromUser(tenantId, userId, role),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/user/roles',
    schema: { querystring: OptionalQuery('userId'), response: { 200: RolesResponse, 400: TextError } },
    parse: (request) => ({ userId: requiredQuery(request.query, 'userId'), tenantId: request.tenantId }),
    scope: 'tenant',
    handle: async ({ userId, tenantId }) => roles().rolesOfUser(tenantId, userId),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/role/users',
    schema: { querystring: OptionalQuery('role'), response: { 200: UsersResponse, 400: TextError } },
    parse: (request) => ({ role: roleName(requiredQuery(request.query, 'role'), 'role'), tenantId: request.tenantId }),
    scope: 'tenant',
    handle: async ({ role, tenantId }) => roles().usersWithRole(tenantId, role),
  });
};

export default userRoleRoutes;
