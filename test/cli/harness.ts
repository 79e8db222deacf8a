import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runCli } from '../../src/cli/cli.js';
import { call, createTestApp, type TestApp } from '../helper.js';
import { hashParams } from './fixtures.js';

export const apiKey = 'migration-cli-test-key-0123456789';

export interface RunningCore {
  t: TestApp;
  url: string;
}

/** A real core (real database, real queue worker) listening on a random port. */
export async function startCore(overrides: Record<string, unknown> = {}): Promise<RunningCore> {
  const t = await createTestApp({ api_keys: apiKey, idp_password_hashing_signer_key: hashParams.signerKey, ...overrides });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return { t, url: `http://127.0.0.1:${port}` };
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `identity-core <args>` in this process against the given core, as a script would. */
export async function runCommand(
  args: string[],
  options: { signal?: AbortSignal; env?: Record<string, string> } = {},
): Promise<CommandResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    isTTY: false,
    env: options.env ?? { IDENTITY_CORE_API_KEY: apiKey },
    signal: options.signal,
  });
  return { code, stdout, stderr };
}

export function migrateArgs(core: RunningCore, source: string, file: string, ...extra: string[]): string[] {
  return ['migrate', source, file, '--core-url', core.url, '--poll-interval', '0.02', ...extra];
}

export async function signIn(core: RunningCore, email: string, password: string): Promise<string> {
  const reply = await call(core.t.app, 'POST', '/recipe/signin', { body: { email, password }, headers: { 'api-key': apiKey } });
  return reply.json?.status ?? `HTTP ${reply.statusCode}`;
}

export async function userById(core: RunningCore, userId: string) {
  const reply = await call(core.t.app, 'GET', '/user/id', { query: { userId }, headers: { 'api-key': apiKey } });
  return reply.json?.user;
}

/**
 * A pass-through proxy in front of the core that lets a test act when a given request goes by:
 * `onReply` sees each answer and may drop it (the client then sees a broken connection, as when a
 * process dies after the core has stored a batch but before the answer arrived); `onRequest` sees each
 * request before the core does and may drop it unsent.
 */
export async function startProxy(
  target: string,
  onReply: (method: string, path: string, status: number, count: number) => 'forward' | 'drop',
  // An answer of its own stands for the core's (a fault the core would have): it is sent instead of forwarding.
  onRequest: (method: string, path: string, count: number, body: string) => 'forward' | 'drop' | { status: number; body: string } = () =>
    'forward',
): Promise<{ url: string; close(): Promise<void> }> {
  const counts = new Map<string, number>();
  // Requests forwarded and not answered yet: close() waits for them, so the core is asked only after it finished them.
  const forwarding = new Set<Promise<unknown>>();
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = (request.url ?? '/').split('?')[0];
    const key = `${request.method} ${path}`;
    // The request's number on its route: its reply is told the same number, whatever was sent in between.
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    const decision = onRequest(request.method ?? 'GET', path, count, Buffer.concat(chunks).toString('utf8'));
    if (decision === 'drop') {
      request.socket.destroy();
      return;
    }
    if (decision !== 'forward') {
      response.writeHead(decision.status, { 'content-type': 'application/json' });
      response.end(decision.body);
      return;
    }
    const forwarded = fetch(`${target}${request.url}`, {
      method: request.method,
      headers: Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)),
      ) as Record<string, string>,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    }).then(async (upstream) => ({ status: upstream.status, headers: upstream.headers, body: Buffer.from(await upstream.arrayBuffer()) }));
    forwarding.add(forwarded);
    const upstream = await forwarded.finally(() => forwarding.delete(forwarded));
    const body = upstream.body;
    if (onReply(request.method ?? 'GET', path, upstream.status, count) === 'drop') {
      request.socket.destroy();
      return;
    }
    response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await Promise.allSettled([...forwarding]);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The command run against `core` through a proxy that notes every request ("METHOD /path"); `standIn` may answer
 * some of them in the core's place (a fault or an answer the core would not give).
 */
export async function runNotingRequests(
  core: RunningCore,
  args: (throughProxy: RunningCore) => string[],
  standIn: (path: string) => { status: number; body: string } | undefined = () => undefined,
): Promise<{ result: CommandResult; requests: string[] }> {
  const requests: string[] = [];
  const proxy = await startProxy(
    core.url,
    () => 'forward',
    (method, path) => {
      requests.push(`${method} ${path}`);
      return standIn(path) ?? 'forward';
    },
  );
  try {
    return { result: await runCommand(args({ ...core, url: proxy.url })), requests };
  } finally {
    await proxy.close();
  }
}
