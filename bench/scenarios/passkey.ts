import type { Request } from 'autocannon';
import type pg from 'pg';
import { SoftAuthenticator } from '../../test/recipes/webauthn/authenticator.js';
import { describeCpu, withCpu } from '../lib/cpu-accounting.js';
import { isOk, runLoad, type LoadResult } from '../lib/load.js';
import { cpuRatioOf, loadFigure, skippedRow, spreadNote } from '../lib/report.js';
import { alternate } from '../lib/rounds.js';
import { postJson, routeExists, type Scenario } from '../lib/scenario.js';
import type { ServerProcess } from '../lib/server-process.js';
import { seedExistingUsers } from '../lib/seed.js';

const name = 'passkey';
const corePaths = { options: '/public/recipe/webauthn/options/signin', signIn: '/public/recipe/webauthn/signin' };
const barePaths = { options: '/webauthn/options/signin', signIn: '/webauthn/signin' };
const label = `POST ${corePaths.options} + ${corePaths.signIn} (ES256 passkeys, 64 conn.)`;
const goal = '≥ 0.7 ×';
const connections = 64;
const existingUsers = 50_000;
const passkeyUsers = 2000;
const rpId = 'bench.example';
const origin = 'https://bench.example';
// What supertokens-node sends for a sign-in (its default timeout and user verification).
const optionsBody = JSON.stringify({
  relyingPartyId: rpId,
  relyingPartyName: 'Bench',
  origin,
  timeout: 60_000,
  userVerification: 'preferred',
});

type Paths = typeof corePaths;

/**
 * The passkeys of the run: software authenticators whose public keys are stored in both databases. A flow takes one
 * that no other flow holds, so that each signs with a counter above the last one it stored, as a real device does.
 */
class Passkeys {
  readonly all = Array.from({ length: passkeyUsers }, () => new SoftAuthenticator({ alg: 'ES256' }));
  private readonly free = this.all.map((_, index) => index);

  take(): number | undefined {
    return this.free.pop();
  }

  give(index: unknown): void {
    if (typeof index === 'number') this.free.unshift(index);
  }

  async store(pool: pg.Pool): Promise<void> {
    const ids = this.all.map((_, index) => `passkey-${index}`);
    await pool.query(
      `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email)
       SELECT id, 'public', 'webauthn', 1, id || '@bench.example' FROM unnest($1::text[]) AS id`,
      [ids],
    );
    await pool.query(
      `INSERT INTO webauthn_credentials (rp_id, credential_id, user_id, public_key, counter, created_at)
       SELECT $1, c.id, c.user_id, c.key, 0, 1 FROM unnest($2::text[], $3::text[], $4::bytea[]) AS c(id, user_id, key)`,
      [rpId, this.all.map((key) => key.id), ids, this.all.map((key) => key.coseKey())],
    );
    await pool.query('ANALYZE users, user_ids, webauthn_credentials, webauthn_options');
  }
}

/** One flow = sign-in options, then the assertion the passkey signs over their challenge. */
function flowRequests(paths: Paths, passkeys: Passkeys): Request[] {
  return [
    {
      method: 'POST',
      path: paths.options,
      body: optionsBody,
      setupRequest: (request, context) => {
        context.passkey = passkeys.take();
        return request;
      },
      onResponse: (_status, body, context) => {
        try {
          const options = JSON.parse(body) as { webauthnGeneratedOptionsId?: string; challenge?: string };
          context.optionsId = options.webauthnGeneratedOptionsId;
          context.challenge = options.challenge;
        } catch {
          context.optionsId = undefined;
        }
      },
    },
    {
      method: 'POST',
      path: paths.signIn,
      setupRequest: (request, context) => {
        const passkey = context.passkey as number | undefined;
        if (passkey === undefined || !context.optionsId) {
          passkeys.give(passkey);
          return undefined;
        }
        const credential = passkeys.all[passkey].assert(context.challenge as string, origin, rpId);
        return { ...request, body: JSON.stringify({ webauthnGeneratedOptionsId: context.optionsId, credential }) };
      },
      onResponse: (_status, _body, context) => passkeys.give(context.passkey),
    },
  ];
}

function flows(databaseUrl: string, server: ServerProcess, paths: Paths, passkeys: Passkeys, seconds: number) {
  return withCpu(databaseUrl, server, () =>
    runLoad({
      url: server.url,
      connections,
      seconds,
      maxRequests: seconds * 20_000,
      requests: flowRequests(paths, passkeys),
      verifyBody: isOk,
    }),
  );
}

/** One good sign-in and one with a signature of another key must answer as the core does, on both sides. */
async function assertFlowWorks(url: string, paths: Paths, passkeys: Passkeys): Promise<void> {
  const passkey = passkeys.all[0];
  const signIn = async (signer: SoftAuthenticator) => {
    const options = await postJson(url, paths.options, JSON.parse(optionsBody));
    const credential = { ...signer.assert(options.json.challenge as string, origin, rpId), id: passkey.id, rawId: passkey.id };
    return postJson(url, paths.signIn, { webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId, credential });
  };
  const good = await signIn(passkey);
  const forged = await signIn(new SoftAuthenticator({ alg: 'ES256' }));
  const user = good.json.user as { id?: string } | undefined;
  if (good.json.status !== 'OK' || user?.id !== 'passkey-0' || forged.json.status !== 'INVALID_CREDENTIALS_ERROR') {
    throw new Error(
      `${url}: passkey sign-in answered ${JSON.stringify(good.json).slice(0, 200)}, a forged one ${JSON.stringify(forged.json)}`,
    );
  }
}

export const passkeyScenario: Scenario = {
  name,
  summary: 'passkey sign-in (options + assertion) vs a bare route doing the same @simplewebauthn/server check and statements',
  async run(context) {
    const { settings, log } = context;
    const core = await context.core(name, { WEBAUTHN_RP_IDS: rpId, WEBAUTHN_ORIGINS: origin });
    if (!(await routeExists(core.server.url, 'POST', corePaths.signIn)))
      return [skippedRow(name, label, goal, 'route not implemented yet')];
    const bare = await context.bare(name);
    const passkeys = new Passkeys();
    await Promise.all([seedExistingUsers(core.pool, existingUsers), seedExistingUsers(bare.pool, existingUsers)]);
    await Promise.all([passkeys.store(core.pool), passkeys.store(bare.pool)]);
    await assertFlowWorks(core.server.url, corePaths, passkeys);
    await assertFlowWorks(bare.server.url, barePaths, passkeys);

    log('  warm-up');
    const { databaseUrl, seconds } = settings;
    await flows(databaseUrl, bare.server, barePaths, passkeys, 1);
    await flows(databaseUrl, core.server, corePaths, passkeys, 1);
    // perSecond counts requests; a flow is two of them.
    const perFlow = <R extends LoadResult>(result: R) => ({ ...result, perSecond: result.perSecond / 2 });
    const {
      ceiling,
      core: measured,
      ratio,
      pairs,
    } = await alternate(
      settings.rounds,
      async () => perFlow(await flows(databaseUrl, bare.server, barePaths, passkeys, seconds)),
      async () => perFlow(await flows(databaseUrl, core.server, corePaths, passkeys, seconds)),
      log,
    );
    const { rows } = await core.pool.query<{ used: number; left: number }>(
      `SELECT (SELECT count(*)::int FROM webauthn_credentials WHERE last_used_at IS NOT NULL) AS used,
              (SELECT count(*)::int FROM webauthn_options) AS left`,
    );
    const coreFigure = loadFigure(measured, 'sign-ins/s', core.server.peakRssMb());
    const ceilingFigure = loadFigure(ceiling, 'sign-ins/s', bare.server.peakRssMb());
    const notes = [
      `${passkeyUsers} passkey users among ${existingUsers.toLocaleString('en-US')} others; ${rows[0].used} credentials used, ${rows[0].left} options left unspent; the assertions are signed in the bench process (both sides alike); latencies are per request`,
      `CPU per request: ${describeCpu('core', measured.cpuPerRequest)}; ${describeCpu('bare', ceiling.cpuPerRequest)}`,
      spreadNote(pairs),
    ];
    if (measured.failures > 0) notes.push(`${measured.failures} failed requests (${JSON.stringify(measured.statusCounts)})`);
    return [
      {
        scenario: name,
        path: label,
        status: 'measured',
        core: coreFigure,
        ceiling: ceilingFigure,
        ratio,
        cpuRatio: cpuRatioOf(coreFigure, ceilingFigure),
        goal,
        met: ratio >= 0.7 && measured.failures === 0,
        notes,
        rounds: pairs,
      },
    ];
  },
};
