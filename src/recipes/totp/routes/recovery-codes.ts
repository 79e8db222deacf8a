import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { coreError, type CoreError, type ErrorCode } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
import { requiredQuery } from '../../../http/query.js';
import { OptionalQuery, StatusOnly } from '../../../http/schemas.js';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { checkNotEmpty, Int32, TextError } from '../schemas.js';
import { MAX_RECOVERY_CODES, parseRecoveryCodes } from '../recovery-code-format.js';

const field = <K extends string, T extends Parameters<typeof Type.Object>[0][string]>(name: K, schema: T) =>
  Type.Object({ [name]: schema } as { [P in K]: T });
const ImportBody = Type.Intersect([
  field('userId', Type.String()),
  field('codes', Type.Unknown()),
  field('replaceExisting', Type.Optional(Type.Boolean())),
]);
const GenerateBody = Type.Intersect([field('userId', Type.String()), field('count', Type.Optional(Int32))]);
const VerifyBody = Type.Intersect([field('userId', Type.String()), field('code', Type.String())]);
const UserIdBody = Type.Object({ userId: Type.String() });
const Counts = {
  currentNumberOfFailedAttempts: Type.Optional(Type.Integer()),
  maxNumberOfFailedAttempts: Type.Optional(Type.Integer()),
};
const VerifyResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), remainingCount: Type.Integer() }),
  Type.Object({ status: Type.Literal('INVALID_RECOVERY_CODE_ERROR'), ...Counts }),
  StatusOnly('UNKNOWN_USER_ID_ERROR'),
]);
const LimitReached = Type.Object({ status: Type.Literal('LIMIT_REACHED_ERROR'), retryAfterMs: Type.Integer(), ...Counts });

const throwIt = (code: ErrorCode, ...args: unknown[]): never => {
  throw (coreError as (code: ErrorCode, ...args: unknown[]) => CoreError)(code, ...args);
};

// Contract M-7 [PROPOSAL][BEYOND]: the reference has no recovery codes; these routes keep imported ones usable.
const recoveryCodeRoutes: FastifyPluginAsync = async (app) => {
  const codes = () => app.services.recoveryCodes;

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/recoverycodes/import',
    schema: {
      body: ImportBody,
      response: {
        200: Type.Object({ status: Type.Literal('OK'), importedCount: Type.Integer(), remainingCount: Type.Integer() }),
        400: TextError,
      },
    },
    parse: ({ body }) => {
      checkNotEmpty({ userId: body.userId });
      const checkDigest = (hash: string) => app.services.hasher.importRefusal(hash, 'bcrypt');
      const parsed = parseRecoveryCodes(body.codes, { report: throwIt, suffix: '', acceptStored: false, checkDigest })!;
      return { userId: body.userId, codes: parsed, replaceExisting: body.replaceExisting ?? false };
    },
    scope: 'app',
    handle: async ({ userId, codes: parsed, replaceExisting }) => codes().importCodes(userId, parsed, replaceExisting),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/recoverycodes/generate',
    schema: {
      body: GenerateBody,
      response: { 200: Type.Object({ status: Type.Literal('OK'), codes: Type.Array(Type.String()) }), 400: TextError },
    },
    parse: ({ body }) => {
      checkNotEmpty({ userId: body.userId });
      const count = body.count ?? 10;
      if (count < 1 || count > MAX_RECOVERY_CODES) throw coreError('INVALID_FIELD', 'count');
      return { userId: body.userId, count };
    },
    scope: 'app',
    handle: async ({ userId, count }) => codes().generate(userId, count),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/recoverycodes/status',
    schema: {
      querystring: OptionalQuery('userId'),
      response: {
        200: Type.Object({ status: Type.Literal('OK'), remainingCount: Type.Integer(), totalCount: Type.Integer() }),
        400: TextError,
      },
    },
    parse: ({ query }) => requiredQuery(query, 'userId'),
    scope: 'app',
    handle: async (userId) => codes().status(userId),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/recoverycodes/remove',
    schema: {
      body: UserIdBody,
      response: { 200: Type.Object({ status: Type.Literal('OK'), didCodesExist: Type.Boolean() }), 400: TextError },
    },
    scope: 'app',
    handle: async ({ body }) => codes().remove(body.userId),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/recoverycodes/verify',
    // 429 (with Retry-After) carries the LIMIT_REACHED_ERROR object: past the account's or the client's limit.
    schema: { body: VerifyBody, response: { 200: VerifyResponse, 400: TextError, 429: LimitReached, 503: TextError } },
    parse: (request) => {
      checkNotEmpty({ userId: request.body.userId });
      return { ...request.body, tenantId: request.tenantId, cdiVersion: request.cdiVersion, ip: request.ip };
    },
    scope: 'tenant',
    handle: async ({ userId, code, tenantId, cdiVersion, ip }) =>
      codes().verify(tenantId, userId, code, { clientIp: ip, withCounts: cdiAtLeast(cdiVersion, '5.0') }),
  });
};

export default recoveryCodeRoutes;
