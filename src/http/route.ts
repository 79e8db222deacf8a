import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, preValidationHookHandler } from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';
import type { CdiVersion } from './cdi-version.js';
import { assertScope, type Scope } from './scope.js';

type StaticOf<T> = T extends TSchema ? Static<T> : undefined;

export interface RouteSchema {
  body?: TSchema;
  querystring?: TSchema;
  response?: Record<number, TSchema>;
}

type ReplyOf<S extends RouteSchema> = S['response'] extends Record<number, infer R> ? (R extends TSchema ? Static<R> : never) : unknown;

/** What a route sees of its request: the validated input and the app, tenant and cdi-version the pipeline resolved. */
export interface RouteRequest<S extends RouteSchema> {
  body: StaticOf<S['body']>;
  query: StaticOf<S['querystring']>;
  appId: string;
  tenantId: string;
  cdiVersion: CdiVersion;
  /** The client's address, for sources that are told the end user's IP. */
  ip: string;
}

/**
 * Every route has the same pipeline: schema validation → `parse` (the input checks the contract runs before the
 * app/tenant check) → `scope` check → `handle` (one service call, mapped to the wire body) → reply.
 */
export interface RouteSpec<S extends RouteSchema, Input> {
  method: HTTPMethods | HTTPMethods[];
  url: string;
  schema: S;
  /** A function when the scope depends on the input (GET /recipe/user by id is app-scoped, by email tenant-scoped). */
  scope: Scope | ((input: Input) => Scope);
  parse?: (request: RouteRequest<S>) => Input;
  handle: (input: Input, request: RouteRequest<S>, reply: FastifyReply) => Promise<ReplyOf<S>>;
  constraints?: Record<string, string>;
  bodyLimit?: number;
  /** Checks that must run before the schema, because the contract reports them first. */
  preValidation?: preValidationHookHandler;
}

export const routeMarker = Symbol('defined by defineRoute');

declare module 'fastify' {
  interface FastifyContextConfig {
    [routeMarker]?: true;
  }
}

export function defineRoute<S extends RouteSchema, Input = RouteRequest<S>>(app: FastifyInstance, spec: RouteSpec<S, Input>): void {
  const { parse, scope, handle } = spec;
  app.route<{ Reply: unknown }>({
    method: spec.method,
    url: spec.url,
    schema: spec.schema,
    config: { [routeMarker]: true },
    ...(spec.constraints && { constraints: spec.constraints }),
    ...(spec.bodyLimit !== undefined && { bodyLimit: spec.bodyLimit }),
    ...(spec.preValidation && { preValidation: spec.preValidation }),
    handler: async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
      const routeRequest = request as unknown as RouteRequest<S>;
      const input = parse ? parse(routeRequest) : (routeRequest as unknown as Input);
      assertScope(routeRequest, typeof scope === 'function' ? scope(input) : scope);
      return handle(input, routeRequest, reply);
    },
  });
}
