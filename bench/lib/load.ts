import autocannon, { type Request } from 'autocannon';

export interface LoadOptions {
  url: string;
  connections: number;
  /** Hard time bound of the run. */
  seconds: number;
  /** Hard count bound of the run (at least `connections`). */
  maxRequests: number;
  requests: Request[];
  /** A 2xx whose body fails this check counts as a failure, so a fast wrong answer cannot look like speed. */
  verifyBody?: (body: string) => boolean;
}

export interface LoadResult {
  completed: number;
  seconds: number;
  /** Completed requests per second over the whole run. */
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Connection errors, timeouts, non-2xx answers and bodies that failed `verifyBody`. */
  failures: number;
  statusCounts: Record<string, number>;
}

export const jsonHeaders = { 'content-type': 'application/json' };

/** Closed-loop load with autocannon, bounded in both time and count; traffic goes only to the given URL. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  assertLoopback(options.url);
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    maxOverallRequests: Math.max(options.maxRequests, options.connections),
    timeout: 30,
    headers: jsonHeaders,
    requests: options.requests,
    verifyBody: options.verifyBody,
  });
  // autocannon already stops at `duration`; this guards against a server that stops answering mid-run.
  const watchdog = setTimeout(() => instance.stop(), (options.seconds + 35) * 1000);
  try {
    const result = await instance;
    const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
    return {
      completed: result.requests.total,
      seconds: result.duration,
      perSecond: result.duration > 0 ? result.requests.total / result.duration : 0,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      failures: result.errors + result.non2xx + result.mismatches,
      statusCounts,
    };
  } finally {
    clearTimeout(watchdog);
  }
}

export function assertLoopback(url: string): void {
  const { hostname } = new URL(url);
  if (hostname !== '127.0.0.1') throw new Error(`benchmarks only send traffic to 127.0.0.1, not ${hostname}`);
}

export const isOk = (body: string): boolean => body.includes('"status":"OK"');
