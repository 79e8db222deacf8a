import { describe, expect, it } from 'vitest';
import { SourceGuard } from '../../src/lazy-migration/guard.js';
import type { SourceLimits } from '../../src/lazy-migration/config.js';

const limits: SourceLimits = {
  timeoutMs: 1000,
  maxInFlight: 2,
  ratePerSecond: 1000,
  burst: 1000,
  queueWaitMs: 50,
  breakerFailures: 3,
  breakerOpenMs: 10_000,
};

function clock(start = 1_000_000) {
  const state = { now: start };
  return { state, now: () => state.now };
}

describe('source guard', () => {
  it('opens after consecutive failures, refuses while open, lets one probe through when half-open', async () => {
    const time = clock();
    const guard = new SourceGuard(limits, time.now);
    for (let i = 0; i < 3; i++) {
      const admission = await guard.admit();
      if (!admission.admitted) throw new Error('should be admitted');
      admission.release({ kind: 'UNAVAILABLE', reason: 'HTTP 502' });
    }
    expect(guard.state).toBe('open');
    const refused = await guard.admit();
    expect(refused).toEqual({ admitted: false, retryAfterMs: 10_000 });

    time.state.now += 10_000;
    expect(guard.state).toBe('half-open');
    const probe = await guard.admit();
    expect(probe.admitted).toBe(true);
    expect((await guard.admit()).admitted).toBe(false);
    if (probe.admitted) probe.release({ kind: 'MISMATCH' });
    expect(guard.state).toBe('closed');
  });

  it('mismatches never count as failures', async () => {
    const guard = new SourceGuard(limits);
    for (let i = 0; i < 10; i++) {
      const admission = await guard.admit();
      if (admission.admitted) admission.release({ kind: 'MISMATCH' });
    }
    expect(guard.state).toBe('closed');
  });

  it('a configuration error opens the breaker at once; a provider Retry-After sets how long', async () => {
    const time = clock();
    const guard = new SourceGuard(limits, time.now);
    const first = await guard.admit();
    if (first.admitted) first.release({ kind: 'CONFIG_ERROR', reason: '401' });
    expect(guard.state).toBe('open');

    const other = new SourceGuard(limits, time.now);
    const admission = await other.admit();
    if (admission.admitted) admission.release({ kind: 'RATE_LIMITED', retryAfterMs: 2000 });
    expect(other.state).toBe('open');
    time.state.now += 2000;
    expect(other.state).toBe('half-open');
  });

  it('calls beyond the in-flight cap wait a bounded time, then are refused', async () => {
    const guard = new SourceGuard(limits);
    const a = await guard.admit();
    const b = await guard.admit();
    expect(guard.callsInFlight).toBe(2);
    const started = Date.now();
    expect((await guard.admit()).admitted).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);

    const waiting = guard.admit();
    if (a.admitted) a.release({ kind: 'MATCH' });
    expect((await waiting).admitted).toBe(true);
    if (b.admitted) b.release({ kind: 'MATCH' });
  });

  it('the token bucket bounds the call rate', async () => {
    const time = clock();
    const guard = new SourceGuard({ ...limits, ratePerSecond: 1, burst: 2, queueWaitMs: 0 }, time.now);
    for (let i = 0; i < 2; i++) {
      const admission = await guard.admit();
      if (admission.admitted) admission.release({ kind: 'MATCH' });
      else throw new Error('burst should be admitted');
    }
    expect((await guard.admit()).admitted).toBe(false);
    time.state.now += 1000;
    expect((await guard.admit()).admitted).toBe(true);
  });
});
