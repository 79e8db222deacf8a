import type { Request } from 'autocannon';
import crypto from 'node:crypto';
import { CompactSign, importPKCS8 } from 'jose';
import { describeCpu, withCpu, type CpuPerRequest } from '../lib/cpu-accounting.js';
import { isOk, runLoad, type LoadResult } from '../lib/load.js';
import { cpuRatioOf, loadFigure, skippedRow, spreadNote, type Row } from '../lib/report.js';
import { alternate } from '../lib/rounds.js';
import { postJson, routeExists, type BenchContext, type Scenario } from '../lib/scenario.js';
import type { ServerProcess } from '../lib/server-process.js';
import { makeCredentials, type Credential } from '../lib/credentials.js';
import { insertEmailPasswordUsers } from '../lib/seed.js';
import { signinLoad, signinPath } from '../lib/signin-load.js';

const connections = 64;
const createPath = '/recipe/session';
const refreshPath = '/recipe/session/refresh';
const verifyPath = '/recipe/session/verify';

const createBody = (userId: string) =>
  JSON.stringify({ userId, userDataInJWT: { role: 'member' }, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false });

// The payload a created session's access token carries, signed in-process as the signing ceiling.
const samplePayload = {
  sub: 'bench-user',
  exp: 1_900_000_000,
  iat: 1_800_000_000,
  tId: 'public',
  rsub: 'bench-user',
  sessionHandle: crypto.randomUUID(),
  refreshTokenHash1: 'a'.repeat(64),
  parentRefreshTokenHash1: null,
  antiCsrfToken: null,
  role: 'member',
};

/** RS256 signatures per second in this process, 64 in flight, with the WebCrypto keys jose uses in the core. */
async function measureSigning(seconds: number): Promise<LoadResult> {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = await importPKCS8(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'RS256');
  const bytes = new TextEncoder().encode(JSON.stringify(samplePayload));
  const until = performance.now() + seconds * 1000;
  let completed = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        await new CompactSign(bytes).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: 'd-1', version: '5' }).sign(key);
        completed++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  return { completed, seconds: elapsed, perSecond: completed / elapsed, p50Ms: 0, p99Ms: 0, failures: 0, statusCounts: {} };
}

const slower = (a: Timed, b: Timed): Timed => (a.perSecond <= b.perSecond ? a : b);

interface Chain {
  refreshToken?: string;
  handle?: string;
}

/**
 * Chains of refreshes: a chain creates one session, then refreshes it with the refresh token of its last answer.
 * Each request takes a chain no other request has in flight and gives it back with its answer; autocannon clears a
 * request's context after every answer, so a chain cannot live there.
 */
function refreshChain(kind: 'core' | 'bare' | 'bare-signed', prefix: string): Request[] {
  let counter = 0;
  const idle: Chain[] = [];
  return [
    {
      method: 'POST',
      path: kind === 'core' ? refreshPath : kind === 'bare' ? '/session/refresh' : '/session/refresh-signed',
      setupRequest: (request, context) => {
        const chain = idle.pop() ?? {};
        context.chain = chain;
        if (kind === 'core') {
          return chain.refreshToken
            ? {
                ...request,
                body: JSON.stringify({ refreshToken: chain.refreshToken, enableAntiCsrf: false, useDynamicSigningKey: true }),
              }
            : { ...request, path: createPath, body: createBody(`${prefix}-${counter++}`) };
        }
        return chain.handle
          ? { ...request, body: JSON.stringify({ handle: chain.handle }) }
          : { ...request, path: '/session/create', body: JSON.stringify({ userId: `${prefix}-${counter++}` }) };
      },
      onResponse: (_status, body, context) => {
        const chain = context.chain as Chain;
        try {
          const answer = JSON.parse(body) as { refreshToken?: { token: string }; handle?: string };
          chain.refreshToken = answer.refreshToken?.token;
          chain.handle = answer.handle;
        } catch {
          chain.refreshToken = undefined;
          chain.handle = undefined;
        }
        idle.push(chain);
      },
    },
  ];
}

function creates(kind: 'core' | 'bare' | 'bare-signed', prefix: string): Request[] {
  let counter = 0;
  return [
    {
      method: 'POST',
      path: kind === 'core' ? createPath : kind === 'bare' ? '/session/create' : '/session/create-signed',
      setupRequest: (request) => ({
        ...request,
        body: kind === 'core' ? createBody(`${prefix}-${counter++}`) : JSON.stringify({ userId: `${prefix}-${counter++}` }),
      }),
    },
  ];
}

function load(databaseUrl: string, server: ServerProcess, requests: Request[], seconds: number, verifyBody = isOk) {
  return withCpu(databaseUrl, server, () =>
    runLoad({ url: server.url, connections, seconds, maxRequests: seconds * 50_000, requests, verifyBody }),
  );
}

const signinConnections = 16;

/** A bcrypt sign-in, then a session for the user it answered: what an app's sign-in API costs the core. */
function signinThenCreate(credentials: Credential[]): Request[] {
  let counter = 0;
  return [
    {
      method: 'POST',
      path: signinPath,
      setupRequest: (request) => {
        const { email, password } = credentials[counter++ % credentials.length];
        return { ...request, body: JSON.stringify({ email, password }) };
      },
      onResponse: (_status, body, context) => {
        try {
          context.userId = (JSON.parse(body) as { recipeUserId?: string }).recipeUserId;
        } catch {
          context.userId = undefined;
        }
      },
    },
    {
      method: 'POST',
      path: createPath,
      setupRequest: (request, context) => (context.userId ? { ...request, body: createBody(context.userId as string) } : undefined),
    },
  ];
}

type Timed = LoadResult & { cpuPerRequest?: CpuPerRequest };

interface Measured {
  label: string;
  goal: string;
  minimum?: number;
  core: (round: number) => Promise<Timed>;
  ceiling: (round: number) => Promise<Timed>;
  notes: string[];
  // The ceiling is one bare route (not the slower of two), so its CPU split means something.
  describeCeilingCpu?: boolean;
}

async function measure(context: BenchContext, name: string, server: ServerProcess, spec: Measured): Promise<Row> {
  const { settings, log } = context;
  const { ceiling, core, ratio, pairs } = await alternate(settings.rounds, spec.ceiling, spec.core, log);
  const coreFigure = loadFigure(core, 'req/s', server.peakRssMb());
  const ceilingFigure = loadFigure(ceiling, 'req/s', 0);
  const notes = [...spec.notes, spreadNote(pairs)];
  if (core.cpuPerRequest) notes.push(`CPU per request: ${describeCpu('core', core.cpuPerRequest)}`);
  if (spec.describeCeilingCpu && ceiling.cpuPerRequest) notes.push(`CPU per bare request: ${describeCpu('bare', ceiling.cpuPerRequest)}`);
  if (core.failures > 0) notes.push(`${core.failures} failed requests (${JSON.stringify(core.statusCounts)})`);
  return {
    scenario: name,
    path: spec.label,
    status: 'measured',
    core: coreFigure,
    ceiling: ceilingFigure,
    ratio,
    cpuRatio: cpuRatioOf(coreFigure, ceilingFigure),
    goal: spec.goal,
    met: spec.minimum === undefined ? undefined : ratio >= spec.minimum && core.failures === 0,
    notes,
    rounds: pairs,
  };
}

export const sessionScenario: Scenario = {
  name: 'session',
  summary:
    'session create, refresh and verify-with-database against an in-process RS256 sign and a bare route doing the same SQL; JWKS against /hello',
  async run(context) {
    const { settings, log } = context;
    const core = await context.core('session');
    const label = (path: string) => `POST ${path} (${connections} conn.)`;
    if (!(await routeExists(core.server.url, 'POST', createPath)))
      return [skippedRow('session', label(createPath), '≥ 0.6 ×', 'route not implemented yet')];
    const probe = await postJson(core.server.url, createPath, JSON.parse(createBody('probe')));
    if (probe.json.status !== 'OK') throw new Error(`session create answered ${probe.status} ${JSON.stringify(probe.json)}`);
    const accessToken = (probe.json.accessToken as { token: string }).token;
    const handle = (probe.json.session as { handle: string }).handle;
    const bare = await context.bare('session');
    const { databaseUrl, seconds } = settings;
    const bareProbe = await postJson(bare.server.url, '/session/create', { userId: 'probe' });

    log('  warm-up');
    await load(databaseUrl, core.server, creates('core', 'warm'), 1);
    await load(databaseUrl, bare.server, creates('bare', 'warm'), 1);
    await measureSigning(1);

    const rows: Row[] = [];
    let signing: LoadResult | undefined;
    const signingNote = () => `in-process RS256 sign of the same payload: ${signing?.perSecond.toFixed(0)} signatures/s`;
    rows.push(
      await measure(context, 'session-create', core.server, {
        label: label(createPath),
        goal: '≥ 0.6 × slower ceiling',
        minimum: 0.6,
        ceiling: async (round) => {
          const [sql, sign] = [await load(databaseUrl, bare.server, creates('bare', `c${round}`), seconds), await measureSigning(seconds)];
          signing = sign;
          return slower(sql, sign);
        },
        core: async (round) => load(databaseUrl, core.server, creates('core', `c${round}`), seconds),
        notes: [],
      }),
    );
    rows[0].notes.unshift(signingNote(), 'ceiling: the slower of the bare INSERT route and the in-process sign');
    // The ceilings above are measured apart; the core pays both on the same cores. A bare route doing both (the same
    // INSERT and an RS256 sign of the payload, overlapped) shows how much of the gap is the core's own overhead.
    rows.push(
      await measure(context, 'session-create-vs-signed', core.server, {
        label: `${label(createPath)} vs a bare route doing the same INSERT and RS256 sign`,
        goal: 'reported',
        ceiling: async (round) => load(databaseUrl, bare.server, creates('bare-signed', `s${round}`), seconds),
        core: async (round) => load(databaseUrl, core.server, creates('core', `s${round}`), seconds),
        notes: ['ceiling: bare Fastify + pg, the INSERT and a jose RS256 sign (WebCrypto key) of the same payload per request'],
        describeCeilingCpu: true,
      }),
    );
    rows.push(
      await measure(context, 'session-refresh', core.server, {
        label: label(refreshPath),
        goal: '≥ 0.6 × slower ceiling',
        minimum: 0.6,
        ceiling: async (round) => {
          const [sql, sign] = [
            await load(databaseUrl, bare.server, refreshChain('bare', `r${round}`), seconds),
            await measureSigning(seconds),
          ];
          signing = sign;
          return slower(sql, sign);
        },
        core: async (round) => load(databaseUrl, core.server, refreshChain('core', `r${round}`), seconds),
        notes: [
          'each request refreshes a session no other request has in flight with the token of its last answer (cdi 5.6: every refresh rotates and writes)',
        ],
      }),
    );
    rows[2].notes.unshift(signingNote(), 'ceiling: the slower of the bare SELECT FOR UPDATE + UPDATE route and the in-process sign');
    rows.push(
      await measure(context, 'session-refresh-vs-signed', core.server, {
        label: `${label(refreshPath)} vs a bare route doing the same locked read, UPDATE and RS256 sign`,
        goal: '≥ 0.8 ×',
        minimum: 0.8,
        ceiling: async (round) => load(databaseUrl, bare.server, refreshChain('bare-signed', `rs${round}`), seconds),
        core: async (round) => load(databaseUrl, core.server, refreshChain('core', `rs${round}`), seconds),
        notes: ['ceiling: bare Fastify + pg, BEGIN, SELECT … FOR UPDATE, UPDATE, COMMIT, then a jose RS256 sign of the payload read'],
        describeCeilingCpu: true,
      }),
    );
    const verifyBody = JSON.stringify({ accessToken, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: true });
    const bareHandle = JSON.stringify({ handle: (bareProbe.json as { handle: string }).handle });
    rows.push(
      await measure(context, 'session-verify', core.server, {
        label: `${label(verifyPath)} with checkDatabase`,
        goal: 'reported',
        ceiling: async () => load(databaseUrl, bare.server, [{ method: 'POST', path: '/session/verify', body: bareHandle }], seconds),
        core: async () => load(databaseUrl, core.server, [{ method: 'POST', path: verifyPath, body: verifyBody }], seconds),
        notes: [`one session (${handle.slice(0, 8)}…) verified over and over; ceiling: a bare route doing the same SELECT`],
      }),
    );
    rows.push(
      await measure(context, 'session-jwks', core.server, {
        label: 'GET /.well-known/jwks.json vs GET /hello of the same core',
        goal: '≥ 0.8 × /hello',
        minimum: 0.8,
        ceiling: async () =>
          load(databaseUrl, core.server, [{ method: 'GET', path: '/hello' }], seconds, (body) => body.startsWith('Hello')),
        core: async () =>
          load(databaseUrl, core.server, [{ method: 'GET', path: '/.well-known/jwks.json' }], seconds, (body) =>
            body.startsWith('{"keys":['),
          ),
        notes: ['the JWKS is answered from memory; /hello reads the database'],
      }),
    );
    const credentials = await makeCredentials('bcrypt', 64, 8, 'session');
    await insertEmailPasswordUsers(core.pool, credentials);
    const perFlow = (result: Timed): Timed => ({ ...result, perSecond: result.perSecond / 2 });
    rows.push(
      await measure(context, 'session-signin', core.server, {
        label: `POST ${signinPath} + ${createPath}, bcrypt cost 10 (${signinConnections} conn.) vs the sign-in alone`,
        goal: 'reported',
        ceiling: async () => withCpu(databaseUrl, core.server, () => signinLoad(core.server.url, credentials, signinConnections, seconds)),
        core: async () =>
          perFlow(
            await withCpu(databaseUrl, core.server, () =>
              runLoad({
                url: core.server.url,
                connections: signinConnections,
                seconds,
                maxRequests: seconds * 4000,
                requests: signinThenCreate(credentials),
                verifyBody: isOk,
              }),
            ),
          ),
        notes: ['throughput in sign-ins (a flow is a sign-in and a session create); 64 users over 8 distinct bcrypt hashes'],
      }),
    );
    return rows;
  },
};
