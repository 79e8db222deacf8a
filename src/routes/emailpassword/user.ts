import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { badInput, coreError, invalidField } from '../../errors.js';
import { cdiAtLeast } from '../../http/cdi-version.js';
import { assertAppScope, assertTenantScope } from '../../plugins/request-pipeline.js';
import { GetUserQuery, GetUserResponse, TextError, UpdateUserBody, UpdateUserResponse } from '../../schemas/emailpassword.js';
import { toUserObject } from '../../users/user-object.js';

// Declared without a rid constraint: every request whose rid is not passwordless/thirdparty lands here (§1.3).
const user: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/recipe/user', {
    // By userId the route is app-scoped, by email tenant-scoped (§1.2); both after the query checks.
    config: { scope: 'custom' },
    schema: { querystring: GetUserQuery, response: { 200: GetUserResponse, 400: TextError } },
    handler: async (request) => {
      const { userId, email } = request.query;
      if (userId !== undefined && email !== undefined) throw badInput('Please provide only one of userId or email');
      if (userId === undefined && email === undefined) throw badInput('Please provide one of userId or email');
      if (userId !== undefined) assertAppScope(request);
      else assertTenantScope(request);
      const result =
        userId !== undefined
          ? await app.services.emailPassword.getUserById(userId)
          : await app.services.emailPassword.getUserByEmail(request.tenantId, email!);
      if (result.status !== 'OK') return result;
      return { status: result.status, user: toUserObject(result.user, request.cdiVersion) };
    },
  });

  app.put('/recipe/user', {
    config: { scope: 'custom' },
    schema: { body: UpdateUserBody, response: { 200: UpdateUserResponse, 400: TextError } },
    preValidation: async (request) => {
      checkUserIdField(request);
      checkNotPasswordlessBody(request);
    },
    handler: async (request) => {
      const { recipeUserId, userId, email, password } = request.body;
      if (email === undefined && password === undefined) throw badInput('You have to provide either email or password.');
      assertAppScope(request);
      return app.services.emailPassword.updateUser(recipeUserId ?? (userId as string), { email, password });
    },
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
