import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeySet } from '../../src/session-bridge/key-set.js';
import { TestClock } from '../helper.js';

// Key endpoints that answer wrongly: each fetch fails, the failure is named, and nothing is believed.
describe('KeySet against a key endpoint that misbehaves', () => {
  let server: http.Server;
  let base = '';
  const hits: string[] = [];
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      hits.push(request.url ?? '');
      switch (request.url) {
        case '/redirect':
          response.writeHead(302, { location: '/elsewhere' }).end();
          return;
        case '/huge':
          response.writeHead(200, { 'content-type': 'application/json' }).end(`{"keys":[],"pad":"${'x'.repeat(300 * 1024)}"}`);
          return;
        case '/html':
          response.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
          return;
        case '/no-keys':
          response.writeHead(200, { 'content-type': 'application/json' }).end('{"kids":[]}');
          return;
        default:
          response.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    ['/redirect', 'answered 302'],
    ['/huge', 'answer too large'],
    ['/html', 'answer is not JSON'],
    ['/no-keys', 'answer has no keys list'],
  ])('%s: UNAVAILABLE (%s), and no second fetch within 30 s', async (path, reason) => {
    const clock = new TestClock();
    const fetched: string[] = [];
    const keys = new KeySet({
      url: `${base}${path}`,
      timeoutMs: 1000,
      ttlMs: 600_000,
      clock: clock.now,
      onFetch: (result, why) => fetched.push(`${result} ${why}`),
    });
    expect(await keys.lookup('k1')).toEqual({ status: 'UNAVAILABLE', retryAfterMs: 30_000, reason });
    clock.advance(29_000);
    expect(await keys.lookup('k2')).toEqual({ status: 'UNAVAILABLE', retryAfterMs: 1000, reason });
    expect(fetched).toEqual([`failed ${reason}`]);
    expect(hits.filter((hit) => hit === '/elsewhere')).toEqual([]);
  });

  it('an empty key set is a fetch that worked: every kid is unknown, and asked for again only after 30 s', async () => {
    const clock = new TestClock();
    const keys = new KeySet({ url: `${base}/empty`, timeoutMs: 1000, ttlMs: 600_000, clock: clock.now });
    const before = hits.length;
    expect(await keys.lookup('k1')).toEqual({ status: 'UNKNOWN_KEY' });
    expect(await keys.lookup('k2')).toEqual({ status: 'UNKNOWN_KEY' });
    clock.advance(30_000);
    expect(await keys.lookup('k3')).toEqual({ status: 'UNKNOWN_KEY' });
    expect(hits.length - before).toBe(2);
  });
});
