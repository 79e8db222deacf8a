import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { requiredQuery } from '../../../http/query.js';
import { coreError } from '../../../errors.js';
import { optionalText, requiredText } from '../fields.js';
import { normaliseDashboardEmail, type UserSelector } from '../service.js';
import {
  CreateUserResponse,
  CredentialsBody,
  DeleteUserResponse,
  SessionsResponse,
  TextError,
  UpdateUserBody,
  UpdateUserResponse,
  UserIdQuery,
  UserSelectorQuery,
  UsersResponse,
} from '../schemas.js';

/** A query parameter that, when given, must not be blank; trimmed. */
function optionalQuery(query: Record<string, string | undefined>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (value.trim() === '') throw coreError('FIELD_EMPTY', name);
  return value.trim();
}

function selectorOf(userId: string | undefined, email: string | undefined): UserSelector | undefined {
  if (userId !== undefined) return { userId: userId.trim() };
  if (email !== undefined) return { email: normaliseDashboardEmail(email) };
  return undefined;
}

// D4 and D5: dashboard users, managed by an operator (no SDK calls these). Unlimited in number.
const userRoutes: FastifyPluginAsync = async (app) => {
  const dashboard = () => app.services.dashboard;

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/dashboard/user',
    schema: { body: CredentialsBody, response: { 200: CreateUserResponse, 400: TextError } },
    scope: 'app',
    handle: async ({ body }) => {
      const email = normaliseDashboardEmail(requiredText(body, 'email'));
      const invalid = dashboard().checkEmail(email);
      if (invalid) return invalid;
      return dashboard().createUser(email, requiredText(body, 'password'));
    },
  });

  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/dashboard/user',
    schema: { body: UpdateUserBody, response: { 200: UpdateUserResponse, 400: TextError } },
    scope: 'app',
    handle: async ({ body }) => {
      const userId = optionalText(body, 'userId');
      const email = optionalText(body, 'email');
      const newEmail = optionalText(body, 'newEmail');
      const newPassword = optionalText(body, 'newPassword');
      return dashboard().updateUser(selectorOf(userId, email), {
        newEmail: newEmail === undefined ? undefined : normaliseDashboardEmail(newEmail),
        newPassword,
      });
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    url: '/recipe/dashboard/user',
    schema: { querystring: UserSelectorQuery, response: { 200: DeleteUserResponse, 400: TextError } },
    scope: 'app',
    handle: async ({ query }) => {
      const selector = selectorOf(optionalQuery(query, 'userId'), optionalQuery(query, 'email'));
      if (selector === undefined) throw coreError('DASHBOARD_USER_SELECTOR');
      return { status: 'OK' as const, didUserExist: await dashboard().deleteUser(selector) };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/dashboard/users',
    schema: { response: { 200: UsersResponse } },
    scope: 'app',
    handle: async () => ({ status: 'OK' as const, users: await dashboard().listUsers() }),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/dashboard/user/sessions',
    schema: { querystring: UserIdQuery, response: { 200: SessionsResponse, 400: TextError } },
    scope: 'app',
    handle: async ({ query }) => ({
      status: 'OK' as const,
      sessions: await dashboard().listSessions(requiredQuery(query, 'userId').trim()),
    }),
  });
};

export default userRoutes;
