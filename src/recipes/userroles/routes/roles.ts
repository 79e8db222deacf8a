import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { requiredQuery } from '../../../http/query.js';
import { OptionalQuery } from '../../../http/schemas.js';
import {
  CreateRoleResponse,
  OkOrUnknownRole,
  PermissionsResponse,
  permissionNames,
  RemoveRoleResponse,
  RoleBody,
  roleName,
  RolePermissionsBody,
  RolesResponse,
  TextError,
} from '../schemas.js';

// Roles and their permissions are app-wide (contract M-4.1).
const roleRoutes: FastifyPluginAsync = async (app) => {
  const roles = () => app.services.userRoles;

  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/role',
    schema: { body: RolePermissionsBody, response: { 200: CreateRoleResponse, 400: TextError } },
    parse: ({ body }) => ({ role: roleName(body.role, 'role'), permissions: permissionNames(body.permissions ?? []) }),
    scope: 'app',
    handle: async ({ role, permissions }) => roles().createRoleOrAddPermissions(role, permissions),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/role/remove',
    schema: { body: RoleBody, response: { 200: RemoveRoleResponse, 400: TextError } },
    parse: ({ body }) => roleName(body.role, 'role'),
    scope: 'app',
    handle: async (role) => roles().deleteRole(role),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/roles',
    schema: { response: { 200: RolesResponse, 400: TextError } },
    scope: 'app',
    handle: async () => roles().allRoles(),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/role/permissions',
    schema: { querystring: OptionalQuery('role'), response: { 200: PermissionsResponse, 400: TextError } },
    parse: ({ query }) => roleName(requiredQuery(query, 'role'), 'role'),
    scope: 'app',
    handle: async (role) => roles().permissionsOf(role),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/role/permissions/remove',
    schema: { body: RolePermissionsBody, response: { 200: OkOrUnknownRole, 400: TextError } },
    // Absent permissions remove them all; an empty list removes none (M-4.1).
    parse: ({ body }) => ({
      role: roleName(body.role, 'role'),
      permissions: body.permissions === undefined ? undefined : permissionNames(body.permissions),
    }),
    scope: 'app',
    handle: async ({ role, permissions }) => roles().removePermissions(role, permissions),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/permission/roles',
    schema: { querystring: OptionalQuery('permission'), response: { 200: RolesResponse, 400: TextError } },
    parse: ({ query }) => roleName(requiredQuery(query, 'permission'), 'permission'),
    scope: 'app',
    handle: async (permission) => roles().rolesWithPermission(permission),
  });
};

export default roleRoutes;
