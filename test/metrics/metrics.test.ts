import { beforeAll, describe, expect, it } from 'vitest';
import bcrypt from 'bcrypt';
import { call, createTestApp, type TestApp, useTestApp } from '../helper.js';
import { startMetricsServer } from '../../src/metrics/metrics-server.js';
import { bcryptHash, emailPasswordUser } from '../bulk-import/fixtures.js';

const apiKey = 'metrics-test-api-key-0123456789';
const headers = { 'api-key': apiKey };

type Samples = Map<string, number>;

// The text exposition format, one sample per line: name{labels} value.
function parseSamples(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    samples.set(match[1], Number(match[2]));
  }
  return samples;
}

async function scrape(t: TestApp): Promise<Samples> {
  const reply = await call(t.app, 'GET', '/metrics', { headers });
  expect(reply.statusCode).toBe(200);
  expect(reply.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseSamples(reply.body);
}

const moved = (before: Samples, after: Samples, sample: string) => (after.get(sample) ?? 0) - (before.get(sample) ?? 0);

describe('GET /metrics after a small tour', () => {
  let before: Samples;
  let after: Samples;

  // The queue is imported only when the test drains it.
  const t = useTestApp({ api_keys: apiKey, bulk_import_worker: false });
  beforeAll(async () => {
    await t.app.services.bulkImportWorker.idle();
    // The decoy warm-up started with the app; this joins it, so its verification is counted before the baseline.
    await t.app.services.hasher.verifyDecoy('');
    before = await scrape(t);

    const passwordHash = await bcrypt.hash('the password', 4);
    await call(t.app, 'POST', '/recipe/user/passwordhash/import', { headers, body: { email: 'tour@example.com', passwordHash } });
    for (const password of ['the password', 'wrong password', 'the password']) {
      const reply = await call(t.app, 'POST', '/recipe/signin', { headers, body: { email: 'tour@example.com', password } });
      expect(reply.statusCode).toBe(200);
    }
    // The same route through a tenant prefix, in capitals, with a query string: one route template.
    await call(t.app, 'POST', '/appid-public/public/RECIPE/SIGNIN/?x=1', { headers, body: { email: 'tour@example.com', password: 'x' } });
    await call(t.app, 'GET', '/hello');
    for (const path of ['/no-such-route-1', '/no/such/route/2', '/recipe/signin/extra']) await call(t.app, 'GET', path);
    await call(t.app, 'GET', '/users/count', { headers: { 'api-key': 'a-wrong-api-key-0123456789' } });

    const users = [emailPasswordUser(1), emailPasswordUser(2)];
    expect((await call(t.app, 'POST', '/bulk-import/users', { headers, body: { users } })).statusCode).toBe(200);
    // Taken after queueing: the queued user with this email fails with E003 when the queue is processed.
    const taken = { email: 'user2@example.com', passwordHash: bcryptHash };
    await call(t.app, 'POST', '/recipe/user/passwordhash/import', { headers, body: taken });
    await t.app.services.bulkImportWorker.processUntilEmpty();
    // Queue counts are cached for a few seconds of the app's clock.
    t.clock.advance(10_000);
    after = await scrape(t);
  });

  it('refuses a scrape without the API key', async () => {
    expect((await call(t.app, 'GET', '/metrics')).statusCode).toBe(401);
  });

  it('counts HTTP requests by route template and status, with latency histograms', () => {
    const signIn = 'method="POST",route="/recipe/signin",status_code="200"';
    expect(moved(before, after, `identity_core_http_requests_total{${signIn}}`)).toBe(4);
    expect(moved(before, after, `identity_core_http_request_duration_seconds_count{${signIn}}`)).toBe(4);
    expect(after.get(`identity_core_http_request_duration_seconds_bucket{le="+Inf",${signIn}}`)).toBe(4);
    expect(moved(before, after, 'identity_core_http_requests_total{method="GET",route="unmatched",status_code="404"}')).toBe(2);
    // A single unknown segment is a tenant in front of the route '/' (contract §4.3), which answers the 404.
    expect(moved(before, after, 'identity_core_http_requests_total{method="GET",route="/",status_code="404"}')).toBe(1);
    expect(moved(before, after, 'identity_core_http_requests_total{method="GET",route="/users/count",status_code="401"}')).toBe(1);
    expect(moved(before, after, 'identity_core_http_requests_total{method="GET",route="/hello",status_code="200"}')).toBe(1);
    // The scrape before the tour is counted too (after it answered).
    expect(moved(before, after, 'identity_core_http_requests_total{method="GET",route="/metrics",status_code="200"}')).toBe(1);
  });

  it('keeps cardinality bounded: routes are templates of registered routes or "unmatched"', () => {
    const labelled = [...after.keys()]
      .filter((name) => name.startsWith('identity_core_http_requests_total'))
      .map((name) => ({ method: /method="([^"]*)"/.exec(name)![1], route: /route="([^"]*)"/.exec(name)![1] }));
    expect(labelled.length).toBeGreaterThan(5);
    for (const { method, route } of labelled) {
      expect(route === 'unmatched' || t.app.hasRoute({ method: method as 'GET', url: route }), `${method} ${route}`).toBe(true);
    }
  });

  it('counts password verifications by algorithm and outcome, with durations and queue waits', () => {
    // Four sign-ins: two match; the wrong password and the 'x' of the prefixed call do not. A sign-in that shares
    // another's verification (single flight) reports it too, so matches can count once more.
    expect(moved(before, after, 'identity_core_password_verifications_total{algorithm="bcrypt",outcome="match"}')).toBeGreaterThanOrEqual(
      2,
    );
    expect(moved(before, after, 'identity_core_password_verifications_total{algorithm="bcrypt",outcome="no_match"}')).toBe(2);
    expect(
      moved(before, after, 'identity_core_password_verification_duration_seconds_count{algorithm="bcrypt",outcome="match"}'),
    ).toBeGreaterThanOrEqual(2);
    const durationSum = 'identity_core_password_verification_duration_seconds_sum{algorithm="bcrypt",outcome="match"}';
    expect(moved(before, after, durationSum)).toBeGreaterThan(0);
    expect(moved(before, after, 'identity_core_hashing_queue_wait_seconds_count{pool="bcrypt"}')).toBe(4);
    for (const pool of ['argon2', 'bcrypt', 'scrypt']) {
      expect(after.get(`identity_core_hashing_queue_depth{pool="${pool}"}`)).toBe(0);
      expect(after.get(`identity_core_hashing_in_progress{pool="${pool}"}`)).toBe(0);
      expect(after.get(`identity_core_hashing_rejections_total{pool="${pool}"}`)).toBe(0);
    }
  });

  it('reports the bulk-import queue by status and the users imported', () => {
    expect(moved(before, after, 'identity_core_bulk_import_users_total{result="imported"}')).toBe(1);
    expect(moved(before, after, 'identity_core_bulk_import_users_total{result="failed"}')).toBe(1);
    const queueRows = (status: string) => after.get(`identity_core_bulk_import_queue_rows{status="${status}"}`);
    expect(['NEW', 'PROCESSING', 'FAILED'].map(queueRows)).toEqual([0, 0, 1]);
  });

  it('reports the database pool and the process', () => {
    expect(after.get('identity_core_db_pool_max')).toBe(20);
    expect(after.get('identity_core_db_pool_connections')).toBeGreaterThan(0);
    // Counted while the scrape's own queue count may be waiting for a connection being opened.
    expect(after.get('identity_core_db_pool_waiting')).toBeGreaterThanOrEqual(0);
    expect(after.get('identity_core_process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(after.get('identity_core_nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });
});

describe('metrics_port', () => {
  it('moves /metrics to a port of its own, without API key', async () => {
    const t = await createTestApp({ api_keys: apiKey, metrics_port: 0 });
    const server = await startMetricsServer(t.app.metrics, 0, '127.0.0.1');
    try {
      await call(t.app, 'GET', '/hello');
      const onMainPort = await call(t.app, 'GET', '/metrics', { headers });
      expect([onMainPort.statusCode, onMainPort.body]).toEqual([404, 'Not found\n']);
      const response = await fetch(server.url);
      expect([response.status, response.headers.get('content-type')]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
      const samples = parseSamples(await response.text());
      expect(samples.get('identity_core_http_requests_total{method="GET",route="/hello",status_code="200"}')).toBe(1);
      expect((await fetch(server.url.replace('/metrics', '/hello'))).status).toBe(404);
    } finally {
      await server.close();
      await t.close();
    }
  });
});
