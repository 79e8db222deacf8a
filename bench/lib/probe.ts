import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { assertLoopback } from './load.js';
import { percentile } from './stats.js';

export interface ProbeResult {
  count: number;
  failures: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Open-loop latency probe: one GET every `intervalMs`, whether or not the previous one has answered (a slow
 * answer must not delay, and so hide, the next sample). autocannon's rate limit sends each second's requests
 * in one burst, which would only ever sample the start of every second.
 */
export async function probeLatency(url: string, options: { intervalMs: number; seconds: number }): Promise<ProbeResult> {
  assertLoopback(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const latencies: number[] = [];
  let failures = 0;
  const pending: Array<Promise<void>> = [];
  const count = Math.floor((options.seconds * 1000) / options.intervalMs);
  const started = performance.now();
  for (let index = 0; index < count; index++) {
    const due = started + index * options.intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(
      timedGet(url, agent).then(
        (ms) => void latencies.push(ms),
        () => void failures++,
      ),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  return {
    count: latencies.length,
    failures,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: percentile(latencies, 100),
  };
}

function timedGet(url: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = performance.now();
    const request = http.get(url, { agent }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += String(chunk)));
      response.on('end', () =>
        response.statusCode === 200 && body === 'Hello\n'
          ? resolve(performance.now() - sent)
          : reject(new Error(`status ${response.statusCode}`)),
      );
    });
    request.on('error', reject);
    request.setTimeout(10_000, () => request.destroy(new Error('timeout')));
  });
}
