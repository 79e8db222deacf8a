import type { Logger } from 'pino';

export interface CleanupJob {
  /** Clears the timer and waits for a sweep in progress, so the pool can close after it. */
  stop(): Promise<void>;
}

// Expired devices are swept on a timer rather than on the request path, so a sign-in never pays for them.
// `what` names the swept rows in the log (the session cleanup uses the same job).
export function startCleanupJob(intervalMs: number, sweep: () => Promise<number>, log: Logger, what = 'passwordless devices'): CleanupJob {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = sweep()
      .then((deleted) => log.debug({ deleted }, `expired ${what} deleted`))
      .catch((err: unknown) => log.error({ err }, `cleanup of expired ${what} failed`))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  // The timer alone must not keep the process alive.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
