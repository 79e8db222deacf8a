import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, countRows, snapshot, useTestApp } from '../helper.js';
import { bcryptHash } from './support/routes.js';

const MiB = 1024 * 1024;

// Speaks raw HTTP/1.1: sends `head` and then `body` (possibly nothing), and resolves with what the server
// answered and when, once it closes the connection or after `waitMs`.
function rawRequest(
  port: number,
  head: string,
  body: Buffer | string,
  waitMs: number,
): Promise<{ text: string; elapsedMs: number; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let answeredAt = 0;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, elapsedMs: (answeredAt || Date.now()) - started, closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk) => {
      answeredAt ||= Date.now();
      text += chunk.toString();
    });
    socket.on('close', () => finish(true));
    socket.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? finish(true) : reject(error)));
    socket.write(head);
    if (body.length > 0) socket.write(body);
  });
}

const bulkUser = (n: number, padding: string) => ({
  userMetadata: { padding },
  loginMethods: [{ recipeId: 'emailpassword', email: `big-${n}@example.com`, passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' }],
});

describe('body size limits', () => {
  let port: number;
  const t = useTestApp({ bulk_import_worker: false });
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });

  it('refuses a 10 MB body on a normal route with 413 and our message, writing nothing', async () => {
    const before = await snapshot(t.db);
    const body = JSON.stringify({ email: 'big@example.com', password: 'x'.repeat(10 * MiB) });
    const reply = await call(t.app, 'POST', '/recipe/signup', { body });
    expect([reply.statusCode, reply.body, reply.contentType]).toEqual([
      413,
      'Request body is larger than the limit of 1048576 bytes\n',
      'text/html; charset=UTF-8',
    ]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('answers 413 from the Content-Length alone on a real socket, before the body is sent', async () => {
    const head =
      'POST /recipe/user/passwordhash/import HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10485760\r\n\r\n';
    const answer = await rawRequest(port, head, '', 5000);
    expect(answer.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.text.split('\r\n\r\n')[1]).toBe('Request body is larger than the limit of 1048576 bytes\n');
    expect(await countRows(t.db, 'users')).toBe(0);
  });

  it('takes a body just under 1 MiB on a normal route', async () => {
    const passwordHash = bcryptHash;
    const body = JSON.stringify({ email: 'padded@example.com', passwordHash, unknown: 'p'.repeat(MiB - 200) });
    expect(body.length).toBeLessThan(MiB);
    const reply = await call(t.app, 'POST', '/recipe/user/passwordhash/import', { body });
    expect([reply.statusCode, reply.json.status]).toEqual([200, 'OK']);
  });

  it('accepts a bulk import above 1 MiB (its own 64 MiB limit)', async () => {
    const users = Array.from({ length: 300 }, (_, n) => bulkUser(n, 'm'.repeat(10_000)));
    const body = JSON.stringify({ users });
    expect(body.length).toBeGreaterThan(2.5 * MiB);
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body });
    expect([reply.statusCode, reply.json.status, reply.json.users.length]).toEqual([200, 'OK', 300]);
    expect(await countRows(t.db, 'bulk_import_users')).toBe(300);
  });
});

describe('configured limits and timeouts', () => {
  let port: number;
  const t = useTestApp({ body_limit_bytes: 4096, bulk_import_body_limit_bytes: 65536, request_timeout_ms: 400, bulk_import_worker: false });
  beforeAll(async () => {
    // Node checks for expired requests every 30 s by default; look more often so the test does not wait that long.
    (t.app.server as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval = 50;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });

  it('names the configured limit of the route in the 413', async () => {
    const small = await call(t.app, 'POST', '/recipe/signin', { body: { email: 'a@example.com', password: 'p'.repeat(5000) } });
    expect([small.statusCode, small.body]).toEqual([413, 'Request body is larger than the limit of 4096 bytes\n']);
    const users = Array.from({ length: 10 }, (_, n) => bulkUser(n, 'm'.repeat(1000)));
    const bulkOk = await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
    expect([bulkOk.statusCode, bulkOk.json.status]).toEqual([200, 'OK']);
    const tooMany = Array.from({ length: 100 }, (_, n) => bulkUser(n, 'm'.repeat(1000)));
    const bulkTooBig = await call(t.app, 'POST', '/bulk-import/users', { body: { users: tooMany } });
    expect([bulkTooBig.statusCode, bulkTooBig.body]).toEqual([413, 'Request body is larger than the limit of 65536 bytes\n']);
    expect(await countRows(t.db, 'bulk_import_users')).toBe(10);
  });

  it('closes a connection whose body never finishes arriving with 408 after request_timeout_ms', async () => {
    expect([t.app.server.requestTimeout, t.app.server.headersTimeout]).toEqual([400, 400]);
    const head = 'POST /recipe/signinup/code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';
    const answer = await rawRequest(port, head, '{"email":"slow', 5000);
    expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.closed).toBe(true);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(350);
    expect(await countRows(t.db, 'passwordless_devices')).toBe(0);
  });

  it('does the same to a client that never finishes its headers', async () => {
    const answer = await rawRequest(port, 'GET /apiversion HTTP/1.1\r\nHost: x\r\nX-Slow: ', '', 5000);
    expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
  });
});
