import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import supertokens from 'supertokens-node';
import { errorHandler, middleware } from 'supertokens-node/framework/express/index.js';
import Session from 'supertokens-node/recipe/session/index.js';
import { verifySession } from 'supertokens-node/recipe/session/framework/express/index.js';
import type { SessionRequest } from 'supertokens-node/framework/express/index.js';
import EmailPassword from 'supertokens-node/recipe/emailpassword/index.js';
import Passwordless from 'supertokens-node/recipe/passwordless/index.js';
import ThirdParty from 'supertokens-node/recipe/thirdparty/index.js';
import EmailVerification, { EmailVerificationClaim } from 'supertokens-node/recipe/emailverification/index.js';
import AccountLinking from 'supertokens-node/recipe/accountlinking/index.js';
import WebAuthn from 'supertokens-node/recipe/webauthn/index.js';
import Dashboard from 'supertokens-node/recipe/dashboard/index.js';
import type { FakeOAuthProvider } from './fake-oauth.js';
import type { Outbox } from './outbox.js';

export interface SdkAppOptions {
  coreUrl: string;
  apiKey: string;
  outbox: Outbox;
  /** The OpenID provider the app offers as third-party id `fake-oidc`. */
  oauth?: FakeOAuthProvider;
  /**
   * The app configures `fake-oidc` only partly (id, name, discovery endpoint): its clients come from the core's
   * tenant config, which the SDK merges over the static one (Multitenancy.createOrUpdateThirdPartyConfig).
   */
  clientsFromCore?: boolean;
  /** The Session recipe's anti-CSRF mode (the SDK's default when absent). */
  antiCsrf?: 'VIA_TOKEN' | 'VIA_CUSTOM_HEADER' | 'NONE';
  /** Files served from `/` (the browser test's page and bundle). */
  staticDir?: string;
  /** The core's session-bridge source the app's `POST /auth/bridge` exchanges old-provider tokens with. */
  bridgeSource?: string;
  /** Adds the AccountLinking recipe, linking automatically by verified email. */
  accountLinking?: boolean;
  /** Adds the WebAuthn recipe with this relying-party id and origin (the page's, as a browser would report it; the app's URL when absent). */
  webauthn?: { rpId: string; origin?: string };
  /**
   * The host name in the app's URL (default 127.0.0.1). A browser running WebAuthn needs a domain (`localhost`):
   * a relying-party id cannot be an IP address. The app listens on 127.0.0.1 either way.
   */
  host?: string;
  /** The port to listen on (default: any free one), for a core whose config must name the app's origin first. */
  port?: number;
  /** Adds the Dashboard recipe in its email-password mode (dashboard users of the core), with these admins. */
  dashboard?: { admins?: string[] };
}

export interface CoreCall {
  method: string;
  path: string;
}

export interface SdkApp {
  url: string;
  /** Every request the app answered, as `METHOD /path STATUS`. */
  requests: string[];
  /** Every request the SDK made to the core, in order (path without the `/public` tenant segment). */
  coreCalls: CoreCall[];
  close(): Promise<void>;
}

export const thirdPartyId = 'fake-oidc';

/**
 * The app a customer builds after the cutover, the standard way: supertokens-node's own request layer on Express
 * (`middleware()` serving `/auth/*`, `verifySession()` on the app's routes, `errorHandler()` last) with the
 * Session, EmailPassword, Passwordless, ThirdParty and EmailVerification recipes, pointed at the core. Messages go
 * to the outbox instead of the SDK's delivery services. The SDK is a process singleton: one app per test file.
 *
 * App routes: `GET /api/me` and `POST /api/me` (verifySession), `GET /api/me/strict` (verifySession with `checkDatabase`),
 * `GET /api/verified` (verifySession requiring a verified email). Each answers the session's ids. With `bridgeSource`,
 * `POST /auth/bridge` `{token}` is the route of docs/session-bridge.md: the old provider's token is exchanged at the
 * core and the session created with `Session.createNewSession`.
 */
function webauthnRecipe(webauthn: { rpId: string; origin: string }, outbox: Outbox) {
  return WebAuthn.init({
    getRelyingPartyId: webauthn.rpId,
    getRelyingPartyName: 'identity-core sdk app',
    getOrigin: async () => webauthn.origin,
    emailDelivery: {
      override: (original) => ({
        ...original,
        sendEmail: async (input) =>
          outbox.push({ channel: 'email', to: input.user.email, type: input.type, link: input.recoverAccountLink }),
      }),
    },
  });
}

export async function startSdkApp(options: SdkAppOptions): Promise<SdkApp> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  const coreCalls: CoreCall[] = [];
  const { outbox } = options;

  supertokens.init({
    framework: 'express',
    supertokens: {
      connectionURI: options.coreUrl,
      apiKey: options.apiKey,
      networkInterceptor: (request) => {
        coreCalls.push({ method: request.method.toUpperCase(), path: new URL(request.url).pathname.replace(/^\/public\//, '/') });
        return request;
      },
    },
    appInfo: { appName: 'identity-core sdk app', apiDomain: url, websiteDomain: url, apiBasePath: '/auth', websiteBasePath: '/auth' },
    recipeList: [
      EmailPassword.init({
        emailDelivery: {
          override: (original) => ({
            ...original,
            sendEmail: async (input) =>
              outbox.push({ channel: 'email', to: input.user.email, type: input.type, link: input.passwordResetLink }),
          }),
        },
      }),
      Passwordless.init({
        contactMethod: 'EMAIL_OR_PHONE',
        flowType: 'USER_INPUT_CODE_AND_MAGIC_LINK',
        emailDelivery: {
          override: (original) => ({
            ...original,
            sendEmail: async (input) =>
              outbox.push({ channel: 'email', to: input.email, type: input.type, link: input.urlWithLinkCode, code: input.userInputCode }),
          }),
        },
        smsDelivery: {
          override: (original) => ({
            ...original,
            sendSms: async (input) =>
              outbox.push({
                channel: 'sms',
                to: input.phoneNumber,
                type: input.type,
                link: input.urlWithLinkCode,
                code: input.userInputCode,
              }),
          }),
        },
      }),
      ThirdParty.init({
        signInAndUpFeature: {
          providers: options.oauth
            ? [
                {
                  config: {
                    thirdPartyId,
                    name: 'Fake OpenID provider',
                    oidcDiscoveryEndpoint: `${options.oauth.issuer}/.well-known/openid-configuration`,
                    clients: options.clientsFromCore
                      ? []
                      : [
                          {
                            clientId: options.oauth.clientId,
                            clientSecret: options.oauth.clientSecret,
                            scope: ['openid', 'email', 'profile'],
                          },
                        ],
                  },
                },
              ]
            : [],
        },
      }),
      EmailVerification.init({
        mode: 'OPTIONAL',
        emailDelivery: {
          override: (original) => ({
            ...original,
            sendEmail: async (input) =>
              outbox.push({ channel: 'email', to: input.user.email, type: input.type, link: input.emailVerifyLink }),
          }),
        },
      }),
      Session.init(options.antiCsrf ? { antiCsrf: options.antiCsrf } : {}),
      ...(options.accountLinking
        ? [
            AccountLinking.init({
              shouldDoAutomaticAccountLinking: async () => ({ shouldAutomaticallyLink: true, shouldRequireVerification: true }),
            }),
          ]
        : []),
      ...(options.webauthn ? [webauthnRecipe({ rpId: options.webauthn.rpId, origin: options.webauthn.origin ?? url }, outbox)] : []),
      ...(options.dashboard ? [Dashboard.init({ admins: options.dashboard.admins })] : []),
    ],
    // Nothing is posted to the SDK vendor (the dashboard's analytics call; docs/dashboard.md).
    telemetry: false,
  });

  const requests: string[] = [];
  const app = express();
  // API answers are per session: no ETag, so a browser never turns them into 304s.
  app.set('etag', false);
  app.use((request, response, next) => {
    response.on('finish', () => requests.push(`${request.method} ${request.path} ${response.statusCode}`));
    next();
  });
  app.use(middleware());
  if (options.bridgeSource) {
    const source = options.bridgeSource;
    app.post('/auth/bridge', express.json({ limit: '20kb' }), async (request, response, next) => {
      try {
        const answer = await fetch(`${options.coreUrl}/public/session-bridge/exchange`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'api-key': options.apiKey },
          body: JSON.stringify({ source, token: (request.body as { token?: unknown } | undefined)?.token }),
        });
        if (answer.status === 503) {
          response
            .status(503)
            .set('retry-after', answer.headers.get('retry-after') ?? '30')
            .end();
          return;
        }
        const result = (await answer.json()) as { status: string; recipeUserId: string; user: { id: string } };
        if (result.status !== 'OK') {
          response.status(401).json({ status: result.status });
          return;
        }
        await Session.createNewSession(request, response, 'public', supertokens.convertToRecipeUserId(result.recipeUserId));
        response.json({ status: 'OK', userId: result.user.id });
      } catch (error) {
        next(error);
      }
    });
  }
  const me = (request: SessionRequest, response: express.Response) => {
    const session = request.session!;
    response.json({
      userId: session.getUserId(),
      recipeUserId: session.getRecipeUserId().getAsString(),
      sessionHandle: session.getHandle(),
    });
  };
  app.get('/api/me', verifySession(), me);
  // A state-changing route: the SDK checks anti-csrf on non-GET requests.
  app.post('/api/me', verifySession(), me);
  app.get('/api/me/strict', verifySession({ checkDatabase: true }), me);
  app.get(
    '/api/verified',
    verifySession({ overrideGlobalClaimValidators: (validators) => [...validators, EmailVerificationClaim.validators.isVerified()] }),
    me,
  );
  if (options.staticDir) app.use(express.static(options.staticDir));
  app.use(errorHandler());
  app.use((error: Error, _request: express.Request, response: express.Response, _next: express.NextFunction) => {
    response.status(500).json({ message: error.message });
  });
  server.on('request', app);

  return {
    url,
    requests,
    coreCalls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
