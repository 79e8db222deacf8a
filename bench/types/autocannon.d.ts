// The subset of autocannon 8's programmatic API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  export interface Request extends RequestParams {
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | undefined;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers?: Record<string, string | string[]>) => void;
  }

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    maxOverallRequests?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Request[];
    verifyBody?: (body: string) => boolean;
  }

  export interface Histogram {
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    latency: Histogram;
    requests: Histogram & { sent: number };
    statusCodeStats: Record<string, { count: number }>;
  }

  export interface Instance extends PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
}
