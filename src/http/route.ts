import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, preValidationHookHandler } from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';
import { coreError } from '../errors.js';
import { cdiAtLeast, type CdiVersion } from './cdi-version.js';

// Contract §1.2: a tenant-scoped route needs an existing app and tenant (only `public` exists); an app-scoped one an existing
// app, and from cdi 5.0 no tenant segment; 'any' checks neither (/hello).
export type Scope = 'tenant' | 'app' | 'any';

interface ScopedRequest {
  appId: string;
  tenantId: string;
  cdiVersion: CdiVersion;
}

export function assertTenantScope(request: ScopedRequest): void {
  if (request.appId !== 'public' || request.tenantId !== 'public') throw coreError('TENANT_NOT_FOUND', request.appId, request.tenantId);
}

export function assertAppScope(request: ScopedRequest): void {
  if (request.appId !== 'public') throw coreError('TENANT_NOT_FOUND', request.appId, request.tenantId);
  if (request.tenantId !== 'public' && cdiAtLeast(request.cdiVersion, '5.0')) throw coreError('APP_SPECIFIC_API');
}

/** The login recipes a tenant's firstFactors enable or not for older SDKs (contract-multitenancy T-3). */
export type LoginRecipe = 'emailpassword' | 'passwordless' | 'thirdparty';

declare module 'fastify' {
  interface FastifyInstance {
    // Whether a tenant other than public exists (the multitenancy recipe's cache); decorated by app.ts.
    tenantExists?: (tenantId: string) => Promise<boolean>;
    // Throws the 403 of a login recipe the tenant does not enable at the request's cdi-version; decorated by app.ts.
    assertLoginEnabled?: (tenantId: string, recipe: LoginRecipe, version: CdiVersion) => Promise<void>;
  }
}

/** The tenant check of a tenant-scoped route: public, or any tenant that exists (contract-multitenancy T-1.0). */
async function assertRouteScope(app: FastifyInstance, request: ScopedRequest, scope: Scope): Promise<void> {
  const otherTenant = scope === 'tenant' && request.appId === 'public' && request.tenantId !== 'public';
  if (otherTenant && app.tenantExists && (await app.tenantExists(request.tenantId))) return;
  assertScope(request, scope);
}

export function assertScope(request: ScopedRequest, scope: Scope): void {
  if (scope === 'tenant') assertTenantScope(request);
  else if (scope === 'app') assertAppScope(request);
}

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
  /** A sign-in or sign-up route of this login recipe: refused after the tenant check where the tenant disables it. */
  loginRecipe?: LoginRecipe;
}

export const routeMarker = Symbol('defined by defineRoute');

declare module 'fastify' {
  interface FastifyContextConfig {
    [routeMarker]?: true;
  }
}

export function defineRoute<S extends RouteSchema, Input = RouteRequest<S>>(app: FastifyInstance, spec: RouteSpec<S, Input>): void {
  const { parse, scope, handle, loginRecipe } = spec;
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
      await assertRouteScope(app, routeRequest, typeof scope === 'function' ? scope(input) : scope);
      if (loginRecipe && app.assertLoginEnabled) await app.assertLoginEnabled(routeRequest.tenantId, loginRecipe, routeRequest.cdiVersion);
      return handle(input, routeRequest, reply);
    },
  });
}
