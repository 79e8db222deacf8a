/** Threads left beside the verification slots for fs, dns.lookup and short crypto calls. */
export const threadPoolReserve = 2;
const libuvMaximum = 1024;

/**
 * Sizes the libuv thread pool so that every verification slot has a thread and other work still has some. libuv
 * reads UV_THREADPOOL_SIZE once, when the pool first starts, so this must run before anything uses the pool; a
 * larger value set by the operator is kept.
 */
export function sizeThreadPool(env: NodeJS.ProcessEnv, verificationConcurrency: number): number {
  const wanted = Math.min(libuvMaximum, verificationConcurrency + threadPoolReserve);
  const current = Number(env.UV_THREADPOOL_SIZE);
  if (!(Number.isInteger(current) && current >= wanted)) env.UV_THREADPOOL_SIZE = String(wanted);
  return Number(env.UV_THREADPOOL_SIZE);
}
