import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import { CoreError, coreError } from '../errors.js';
import { describeError } from '../db/pg-errors.js';
import { jsonContentType, textContentType } from '../http/reply.js';
import { resolvedPathOf, runPipelineChecks } from './request-pipeline.js';

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

// Turns an ajv failure into the contract's message: body fields are "invalid in JSON input" (a nested field by its
// own name), missing query parameters are "missing in GET request", a body that is not an object is bad JSON.
function translateValidationError(error: FastifyError): CoreError {
  const issue = (error.validation as ValidationIssue[] | undefined)?.[0];
  const context = (error as { validationContext?: string }).validationContext;
  if (!issue) return coreError('INVALID_JSON');
  const path = issue.instancePath.split('/').filter((part) => part !== '' && !/^\d+$/.test(part));
  const field = issue.keyword === 'required' ? String(issue.params.missingProperty) : path[path.length - 1];
  if (context === 'querystring') return field === undefined ? coreError('INVALID_JSON') : coreError('MISSING_QUERY_FIELD', field);
  if (field === undefined) return coreError('INVALID_JSON');
  return coreError('INVALID_FIELD', field);
}

function toCoreError(error: FastifyError, bodyLimit: number): CoreError | undefined {
  if (error instanceof CoreError) return error;
  if (error.validation) return translateValidationError(error);
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return coreError('BODY_TOO_LARGE', bodyLimit);
  if (error.code?.startsWith('FST_ERR_CTP_') || error instanceof SyntaxError) return coreError('INVALID_JSON');
  return undefined;
}

export function sendError(reply: FastifyReply, error: CoreError): void {
  if (error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
  if (error.jsonBody) {
    void reply.code(error.statusCode).type(jsonContentType).send(JSON.stringify(error.jsonBody));
    return;
  }
  void reply.code(error.statusCode).type(textContentType).send(`${error.publicMessage}\n`);
}

export default fp(
  async (app, { config }: { config: Config }) => {
    app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const known = toCoreError(error, request.routeOptions.bodyLimit ?? config.body_limit_bytes);
      if (known) {
        if (known.statusCode >= 500 && known.statusCode !== 503) request.log.error({ err: describeError(known.cause ?? known) }, known.code);
        return sendError(reply, known);
      }
      // Method and route only: never the query string or the body, which can carry secrets.
      request.log.error({ err: describeError(error), method: request.method, route: request.routeOptions.url }, 'unexpected error');
      sendError(reply, coreError('INTERNAL'));
    });

    app.setNotFoundHandler(async (request, reply) => {
      const resolved = resolvedPathOf(request);
      if (!resolved?.known) return sendError(reply, coreError('NOT_FOUND'));
      try {
        runPipelineChecks(request, config);
      } catch (error) {
        return sendError(reply, error as CoreError);
      }
      sendError(reply, coreError('METHOD_NOT_SUPPORTED'));
    });
  },
  { name: 'error-handler' },
);
