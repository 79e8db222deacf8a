import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import { CoreError, coreError, databaseBusyError, databaseUnavailableError } from '../errors.js';
import { describeError, foreignKeyViolationOf, isConnectionWaitTimeout, isDatabaseUnavailable } from '../db/pg-errors.js';
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

function toCoreError(error: FastifyError, request: FastifyRequest, bodyLimit: number): CoreError | undefined {
  // A service may wrap the database's failure as an internal error; an outage is still an outage.
  if (error instanceof CoreError && !(error.code === 'INTERNAL' && isDatabaseUnavailable(error.cause))) return error;
  if (error.validation) return translateValidationError(error);
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return coreError('BODY_TOO_LARGE', bodyLimit);
  if (error.code?.startsWith('FST_ERR_CTP_') || error instanceof SyntaxError) return coreError('INVALID_JSON');
  const cause = error instanceof CoreError ? error.cause : error;
  if (isConnectionWaitTimeout(cause)) return databaseBusyError();
  if (isDatabaseUnavailable(cause)) return databaseUnavailableError();
  // The request's tenant was removed after its check and before its login method joined it.
  if (foreignKeyViolationOf(cause) === 'login_method_tenants__tenant_id_fkey')
    return coreError('TENANT_NOT_FOUND', request.appId, request.tenantId);
  return undefined;
}

// Every refused request says why in the log: the catalog code, the field, and the contract's text. The text names
// fields, not their values; a JSON body (bulk import) can quote emails, so only its size is logged.
function logRefusal(request: FastifyRequest, error: CoreError): void {
  const why = {
    code: error.code,
    ...(error.field !== undefined && { field: error.field }),
    ...(error.jsonBody ? { jsonBodyBytes: error.publicMessage.length } : { reason: error.publicMessage }),
    statusCode: error.statusCode,
    method: request.method,
    route: request.routeOptions.url,
  };
  request.log.info(why, 'request refused');
}

export function sendError(reply: FastifyReply, error: CoreError): void {
  if (error.statusCode < 500) logRefusal(reply.request, error);
  if (error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
  if (error.jsonBody) {
    void reply.code(error.statusCode).type(jsonContentType).send(JSON.stringify(error.jsonBody));
    return;
  }
  void reply.code(error.statusCode).type(textContentType).send(`${error.publicMessage}\n`);
}

// A known 5xx without a cause is a configuration answer (the signer key is not set) or a refusal under load (503):
// one line that says so, no stack, since it repeats on every request until the operator acts or the load falls.
function logServerError(request: FastifyRequest, error: CoreError): void {
  const where = { code: error.code, method: request.method, route: request.routeOptions.url };
  if (error.cause !== undefined || error.code === 'INTERNAL') {
    request.log.error({ ...where, err: describeError(error.cause ?? error) }, error.code);
  } else if (error.statusCode === 503) request.log.warn(where, error.publicMessage);
  else request.log.error(where, error.publicMessage);
}

export default fp(
  async (app, { config }: { config: Config }) => {
    app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const known = toCoreError(error, request, request.routeOptions.bodyLimit ?? config.body_limit_bytes);
      if (known) {
        if (known.statusCode >= 500) logServerError(request, known);
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
