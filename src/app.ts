import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import type pg from 'pg';
import type { Config } from './config/config.js';
import { createLogger } from './logger.js';
import { resolvePath } from './http/path-resolver.js';
import { parseQueryString } from './http/query.js';
import { checksTextPerUser, findUnstorableField, mayHoldUnstorable } from './http/unstorable-text.js';
import { jsonContentType } from './http/reply.js';
import { findTooDeepField, maxJsonDepth } from './http/json-depth.js';
import { invalidJsonError } from './http/json-syntax-error.js';
import { ridConstraint } from './http/rid-constraint.js';
import type { CdiVersion } from './http/cdi-version.js';
import type { LoginRecipe } from './http/route.js';
import { coreError } from './errors.js';
import requestPipeline, { resolvedPathKey } from './plugins/request-pipeline.js';
import errorHandler from './plugins/error-handler.js';
import { createServices, type Services } from './services.js';
import { prepareTotpSecrets } from './recipes/totp/secrets-at-rest.js';
import { CoreMetrics } from './metrics/metrics.js';
import { BulkQueueCounts } from './metrics/bulk-queue-counts.js';
import metricsPlugin from './metrics/plugin.js';
import openapiPlugin from './openapi/plugin.js';
import { countQueueRowsByStatus } from './bulk-import/repository.js';
import coreRoutes from './core/routes/index.js';
import passwordlessRoutes from './recipes/passwordless/routes/index.js';
import emailPasswordRoutes from './recipes/emailpassword/routes/index.js';
import thirdPartyRoutes from './recipes/thirdparty/routes/index.js';
import emailVerificationRoutes from './recipes/emailverification/routes/index.js';
import userRoutes from './users/routes/index.js';
import accountLinkingRoutes from './account-linking/routes/index.js';
import userIdMappingRoutes from './users/id-mapping/routes/index.js';
import bulkImportRoutes from './bulk-import/routes/index.js';
import lazyMigrationRoutes from './lazy-migration/routes/index.js';
import sessionBridgeRoutes from './session-bridge/routes/index.js';
import userMetadataRoutes from './recipes/usermetadata/routes/index.js';
import userRolesRoutes from './recipes/userroles/routes/index.js';
import totpRoutes from './recipes/totp/routes/index.js';
import sessionRoutes from './recipes/session/routes/index.js';
import jwtRoutes from './recipes/jwt/routes/index.js';
import tenantRoutes from './recipes/multitenancy/routes/index.js';
import webauthnRoutes from './recipes/webauthn/routes/index.js';
import dashboardRoutes from './recipes/dashboard/routes/index.js';

export interface AppOptions {
  config: Readonly<Config>;
  pool: pg.Pool;
  logger?: Logger;
  // Milliseconds since the epoch; tests move time without sleeping.
  clock?: () => number;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export async function buildApp({ config, pool, logger, clock = Date.now }: AppOptions): Promise<FastifyInstance> {
  const knownRoutes = new Set<string>();
  const log = logger ?? createLogger(config);
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // Paths are lower-cased while resolving prefixes (rewriteUrl below), so routes are declared lower-case.
    routerOptions: {
      caseSensitive: true,
      ignoreTrailingSlash: true,
      querystringParser: parseQueryString,
      constraints: { rid: ridConstraint },
    },
    exposeHeadRoutes: false,
    bodyLimit: config.body_limit_bytes,
    requestTimeout: config.request_timeout_ms,
    ajv: { customOptions: { coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false } },
    rewriteUrl(request) {
      const [path, query] = splitUrl(request.url ?? '/');
      const resolved = resolvePath(path, config.base_path, knownRoutes);
      (request as { [resolvedPathKey]?: unknown })[resolvedPathKey] = resolved;
      return query === undefined ? resolved.routePath : `${resolved.routePath}?${query}`;
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Node swaps the two limits when headersTimeout (60 s by default) exceeds requestTimeout, so a request_timeout_ms
  // under 60 s would bound only the headers and leave a slow body 60 s.
  if (config.request_timeout_ms > 0) app.server.headersTimeout = Math.min(app.server.headersTimeout, config.request_timeout_ms);

  app.addHook('onRoute', (route) => {
    knownRoutes.add(route.url.replace(/\/$/, '') || '/');
  });

  // The body is JSON whatever the Content-Type says, or when there is none (contract §1.3). GET and DELETE take their
  // input from the query alone: their body is never read, whatever its content type and whether or not it is empty
  // (the SDK sends DELETE calls with a JSON content type and no body at all).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    if (request.method === 'GET' || request.method === 'DELETE') return done(null, undefined);
    try {
      const parsed: unknown = JSON.parse(body as string);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return done(coreError('INVALID_JSON'), undefined);
      const tooDeep = findTooDeepField(parsed);
      if (tooDeep !== undefined) return done(coreError('JSON_TOO_DEEP', tooDeep, maxJsonDepth), undefined);
      const checkBody = mayHoldUnstorable(body as string) && !checksTextPerUser(request.method, request.routeOptions.url);
      const unstorable = checkBody ? findUnstorableField(parsed) : undefined;
      if (unstorable !== undefined) return done(coreError('INVALID_FIELD', unstorable), undefined);
      done(null, parsed);
    } catch {
      done(invalidJsonError(body as string), undefined);
    }
  });

  app.addHook('onSend', async (_request, reply, payload) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('application/json') && typeof payload === 'string') {
      reply.header('content-type', jsonContentType);
      return payload.endsWith('\n') ? payload : `${payload}\n`;
    }
    return payload;
  });

  const bulkQueueCounts = new BulkQueueCounts(() => countQueueRowsByStatus(pool), { maxAgeMs: 5000, timeoutMs: 2000, now: clock });
  const metrics = new CoreMetrics({
    pool,
    hashingQueues: () => app.services.hasher.queueStates(),
    bulkQueueCounts: () => bulkQueueCounts.read(),
    lazyPending: () => app.services.lazyMigration.pendingCounts(),
    lazyBreakers: () => app.services.lazyMigration.breakerStates(),
  });
  // Before any request: refuses to start when TOTP secrets exist that the configured keys cannot open.
  const totpSecrets = await prepareTotpSecrets(pool, config.totp_secret_keys, log);
  app.decorate('services', createServices({ config, pool, clock, log, metrics, totpSecrets }));
  app.decorate('tenantExists', (tenantId: string) => app.services.multitenancy.exists(tenantId));
  app.decorate('assertLoginEnabled', (tenantId: string, recipe: LoginRecipe, version: CdiVersion) =>
    app.services.multitenancy.assertLoginEnabled(tenantId, recipe, version),
  );
  // Background jobs run only between ready and close, so building an app starts nothing.
  app.addHook('onReady', async () => app.services.start());
  // Waiting verifications are refused (503) as soon as closing starts, so in-flight requests end quickly.
  app.addHook('preClose', async () => app.services.verificationScheduler.stop());
  // A keep-alive connection whose request finishes while the app closes turns idle only then: those are closed as they
  // appear, rather than holding the close open until the client or the keep-alive timeout ends them.
  app.addHook('preClose', async () => {
    if (!app.server.listening) return;
    const closeIdle = setInterval(() => app.server.closeIdleConnections(), 100).unref();
    app.server.once('close', () => clearInterval(closeIdle));
  });
  app.addHook('onClose', async () => app.services.stop());

  await app.register(errorHandler, { config });
  await app.register(requestPipeline, { config });
  await app.register(openapiPlugin, { config });
  await app.register(metricsPlugin, { config, metrics });
  await app.register(coreRoutes);
  await app.register(passwordlessRoutes);
  await app.register(emailPasswordRoutes);
  await app.register(thirdPartyRoutes);
  await app.register(emailVerificationRoutes);
  await app.register(userRoutes);
  await app.register(accountLinkingRoutes);
  await app.register(userIdMappingRoutes);
  await app.register(bulkImportRoutes);
  await app.register(lazyMigrationRoutes);
  await app.register(sessionBridgeRoutes);
  await app.register(userMetadataRoutes);
  await app.register(userRolesRoutes);
  await app.register(totpRoutes);
  await app.register(sessionRoutes);
  await app.register(jwtRoutes);
  await app.register(tenantRoutes, { knownRoutes });
  await app.register(webauthnRoutes);
  await app.register(dashboardRoutes);
  return app;
}

function splitUrl(url: string): [string, string | undefined] {
  const index = url.indexOf('?');
  return index === -1 ? [url, undefined] : [url.slice(0, index), url.slice(index + 1)];
}
