import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config/config.js';

// Anything that can carry a secret is censored wherever it appears in a log object.
const redactPaths = [
  'req.headers["api-key"]',
  'req.headers.authorization',
  'headers["api-key"]',
  'headers.authorization',
  '*.password',
  '*.passwordHash',
  '*.plainTextPassword',
  '*.linkCode',
  '*.userInputCode',
  '*.deviceId',
  '*.signerKey',
  '*.idp_password_hashing_signer_key',
  '*.idp_password_hashing_signer_keys',
  '*.api_keys',
  'password',
  'passwordHash',
  'plainTextPassword',
  'linkCode',
  'userInputCode',
  'deviceId',
  'signerKey',
  // TOTP keys and codes, recovery codes (contract-metadata-roles-totp): never logged, whatever object holds them.
  '*.secretKey',
  '*.secret',
  '*.totp',
  '*.recoveryCodes',
  'secretKey',
  'totp',
  // Session tokens: request bodies are never logged, but nothing that holds one may be either.
  '*.accessToken',
  '*.refreshToken',
  '*.antiCsrfToken',
  '*.jwt',
  'accessToken',
  'refreshToken',
  'antiCsrfToken',
  'jwt',
  // Third-party provider secrets (contract-multitenancy T-2): provider objects are never logged; this is the backstop.
  // Dashboard session ids are bearer secrets, stored as digests.
  '*.clientSecret',
  '*.privateKey',
  '*.additionalConfig',
  '*.sessionId',
  'clientSecret',
  'privateKey',
  'additionalConfig',
  'sessionId',
  // PostgreSQL's detail quotes the failing row or key (a check violation prints the whole row, hash included).
  'err.detail',
  'err.cause.detail',
];

const levels = { DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error', NONE: 'silent' } as const;

// Replaces Fastify's request serializer: a query string can carry a secret (GET /recipe/signinup/codes?deviceId=...),
// so a request is logged by its path only.
function requestWithoutQuery(req: { method: string; url: string; host?: string; ip?: string }) {
  return { method: req.method, url: req.url.split('?')[0], host: req.host, remoteAddress: req.ip };
}

export function createLogger(config: Pick<Config, 'log_level'>, destination?: DestinationStream): Logger {
  return pino(
    { level: levels[config.log_level], redact: { paths: redactPaths, censor: '[redacted]' }, serializers: { req: requestWithoutQuery } },
    destination,
  );
}
