import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { badInput, coreError, invalidField } from '../../../errors.js';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { defineRoute } from '../../../http/route.js';
import { GetUserQuery, GetUserResponse, TextError, UpdateUserBody, UpdateUserResponse } from '../schemas.js';
import { toUserObject } from '../../../users/user-object.js';

type UserLookup = { userId: string } | { email: string };

function parseUserLookup({ userId, email }: GetUserQuery): UserLookup {
  if (userId !== undefined && email !== undefined) throw badInput('Please provide only one of userId or email');
  if (userId !== undefined) return { userId };
  if (email === undefined) throw badInput('Please provide one of userId or email');
  return { email };
}

// Declared without a rid constraint: every request whose rid is not passwordless/thirdparty lands here (§1.3).
const user: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/user',
    schema: { querystring: GetUserQuery, response: { 200: GetUserResponse, 400: TextError } },
    parse: ({ query }) => parseUserLookup(query),
    // By userId the route is app-scoped, by email tenant-scoped (§1.2); both after the query checks.
    scope: (lookup) => ('userId' in lookup ? 'app' : 'tenant'),
    handle: async (lookup, { tenantId, cdiVersion }) => {
      const result =
        'userId' in lookup
          ? await app.services.emailPassword.getUserById(lookup.userId)
          : await app.services.emailPassword.getUserByEmail(tenantId, lookup.email);
      if (result.status !== 'OK') return result;
      return { status: result.status, user: toUserObject(result.user, cdiVersion) };
    },
  });

  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/user',
    schema: { body: UpdateUserBody, response: { 200: UpdateUserResponse, 400: TextError } },
    preValidation: async (request) => {
      checkUserIdField(request);
      checkNotPasswordlessBody(request);
    },
    parse: ({ body }) => {
      if (body.email === undefined && body.password === undefined) throw badInput('You have to provide either email or password.');
      return body;
    },
    scope: 'app',
    handle: async ({ recipeUserId, userId, email, password }) =>
      app.services.emailPassword.updateUser(recipeUserId ?? (userId as string), { email, password }),
  });
};

// `recipeUserId` (cdi >= 4.0) or, as a fallback at any version, `userId` (§5.8). Runs before the schema so that a
// missing id is reported first, as the reference does; the schema then checks recipeUserId's type.
function checkUserIdField(request: FastifyRequest): void {
  const body = request.body as Record<string, unknown> | undefined;
  if (body === undefined || body === null || typeof body !== 'object' || 'recipeUserId' in body) return;
  if ('userId' in body) {
    if (typeof body.userId !== 'string') throw invalidField('userId');
    return;
  }
  throw invalidField(cdiAtLeast(request.cdiVersion, '4.0') ? 'recipeUserId' : 'userId');
}

// Without the header a passwordless update would be read as an email-password one and answered "unknown user" or
// "provide either email or password", which migration scripts log and skip.
function checkNotPasswordlessBody(request: FastifyRequest): void {
  const body = request.body as Record<string, unknown> | undefined;
  if (body === undefined || body === null || typeof body !== 'object') return;
  // An `email: null` keeps the contract's "Field name 'email' is invalid in JSON input" (§1.7).
  if (Object.hasOwn(body, 'phoneNumber')) throw coreError('RID_PASSWORDLESS_REQUIRED', 'phoneNumber is stored only for passwordless users');
}

export default user;
