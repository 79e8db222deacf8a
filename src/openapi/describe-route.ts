import type { RouteOptions } from 'fastify';
import { exemptionFor } from '../plugins/request-pipeline.js';

// Turns a route's own schemas into its OpenAPI operation: adds the headers every route reads, the security
// of the API key, and the plain-text errors the request pipeline and the error handler can answer on any route.

type JsonSchema = Record<string, unknown>;
type RouteSchema = { querystring?: JsonSchema; body?: JsonSchema; response?: Record<string, JsonSchema> } & JsonSchema;

export interface DescribedRoute {
  method: RouteOptions['method'];
  url: string;
  schema?: RouteSchema;
  constraints?: { rid?: string };
}

export const textContentType = 'text/html; charset=UTF-8';
const text = (description: string) => ({ description, content: { [textContentType]: { schema: { type: 'string' } } } });

const commonErrors: Record<string, string> = {
  400: 'Bad input, as plain text naming the field and the problem; also an invalid or unsupported cdi-version, an unknown app or tenant',
  403: 'The client IP is not allowed (ip_allow_regex, ip_deny_regex), or a non-public tenant called an app-wide route',
  404: "'Not found': a tenant prefix with a cdi-version below 3.0, or an unknown tenant in front of /",
  413: 'The request body is larger than body_limit_bytes (bulk_import_body_limit_bytes for POST /bulk-import/users)',
  500: "'Internal Error' (the cause is logged), or the missing-signer-key message",
  503: 'Temporarily unable to verify passwords; the Retry-After header says when to try again',
};
const unauthorised = "'Invalid API key': api_keys is set and the request's api-key header (or Bearer token) is missing or wrong";

const cdiVersionHeader = {
  type: 'string',
  pattern: '^[0-9]+(\\.[0-9]+)*$',
  description: 'Core Driver Interface version the client speaks, e.g. 5.6 (absent: the newest)',
};
const ridHeader = {
  type: 'string',
  enum: ['passwordless', 'thirdparty'],
  description: 'Selects the recipe of this route; any other value, or none, selects email-password',
};

// The response statuses a route declares itself, with plain-text bodies marked as text and JSON bodies that can
// also be a plain-text error at the same status (a bulk-import 400 is JSON; a bad cdi-version header is text).
function declaredResponses(response: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const result: Record<string, JsonSchema> = {};
  for (const [status, schema] of Object.entries(response)) {
    const isError = Number(status) >= 400;
    if (schema.type === 'string') result[status] = text(isError ? (commonErrors[status] ?? 'Plain-text error') : 'Plain text');
    else if (isError) {
      const description = String(schema.description ?? commonErrors[status] ?? 'Error');
      result[status] = { description, content: { 'application/json': { schema }, [textContentType]: { schema: { type: 'string' } } } };
    } else result[status] = schema;
  }
  return result;
}

// GET and PUT /recipe/user are one path served by three recipes, chosen by the rid header: one operation whose
// query, body and answer are those of any of them.
function mergeVariants(variants: RouteSchema[]): RouteSchema {
  if (variants.length === 1) return variants[0];
  const merged: RouteSchema = {};
  const queries = variants.map((variant) => variant.querystring).filter((query) => query !== undefined);
  if (queries.length > 0) {
    const properties = Object.assign({}, ...queries.map((query) => query.properties as JsonSchema));
    merged.querystring = { type: 'object', properties };
  }
  const bodies = variants.map((variant) => variant.body).filter((body) => body !== undefined);
  if (bodies.length > 0) merged.body = { anyOf: bodies };
  const response: Record<string, JsonSchema> = {};
  for (const status of new Set(variants.flatMap((variant) => Object.keys(variant.response ?? {})))) {
    const answers = variants.map((variant) => variant.response?.[status]).filter((answer) => answer !== undefined);
    response[status] = answers.length === 1 || answers.every((answer) => answer.type === 'string') ? answers[0] : { anyOf: answers };
  }
  merged.response = response;
  return merged;
}

export function describeRoute(route: DescribedRoute, allRoutes: readonly DescribedRoute[]): { schema: JsonSchema } {
  if (route.constraints?.rid !== undefined) return { schema: { hide: true } };
  const methods = [route.method].flat();
  const sharesMethod = (other: DescribedRoute) => [other.method].flat().some((method) => methods.includes(method));
  const variants = allRoutes.filter(
    (other) => other === route || (other.url === route.url && other.constraints?.rid !== undefined && sharesMethod(other)),
  );
  const schema = mergeVariants(variants.map((variant) => variant.schema ?? {}));
  const open = exemptionFor(route.url).apiKey;
  const takesBody = methods.some((method) => method !== 'GET');

  const responses: Record<string, JsonSchema> = declaredResponses(schema.response ?? {});
  for (const status of ['400', '403', '404', ...(takesBody ? ['413'] : []), '500']) responses[status] ??= text(commonErrors[status]);
  if (!open) responses['401'] = text(unauthorised);
  // Routes without a declared answer (/hello, /metrics) answer plain text.
  if (!Object.keys(responses).some((status) => status.startsWith('2'))) responses['200'] = text('Success, as plain text');

  return {
    schema: {
      ...schema,
      ...(variants.length > 1 && { description: 'The rid header selects the recipe: passwordless, thirdparty, or (none) emailpassword.' }),
      headers: {
        type: 'object',
        properties: { 'cdi-version': cdiVersionHeader, ...(variants.length > 1 && { rid: ridHeader }) },
      },
      security: open ? [] : [{ apiKey: [] }, { bearer: [] }],
      response: responses,
    },
  };
}
