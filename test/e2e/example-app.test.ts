import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreApiKey, startListeningCore, type ListeningCore } from './app/core.js';

// examples/express-app/app.mjs run as the README says, against a core with API keys, driven over HTTP the way the
// frontend SDK drives it (tokens in headers).
const example = 'examples/express-app/app.mjs';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe('the example app', () => {
  let core: ListeningCore;
  let child: ChildProcess;
  let output = '';
  let url = '';

  beforeAll(async () => {
    core = await startListeningCore();
    const port = await freePort();
    child = spawn(process.execPath, [example], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port), IDENTITY_CORE_URL: core.url, IDENTITY_CORE_API_KEY: coreApiKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /listening at (http:\/\/\S+)/.exec(output);
        if (!match) return;
        clearInterval(timer);
        resolve(match[1]);
      }, 20);
      void exited.then(() => {
        clearInterval(timer);
        reject(new Error(`the example app exited: ${output}`));
      });
    });
  }, 30_000);

  afterAll(async () => {
    child?.kill('SIGTERM');
    await core?.close();
  });

  async function call(method: string, path: string, body?: unknown, accessToken?: string) {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        'st-auth-mode': 'header',
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(accessToken !== undefined && { authorization: `Bearer ${accessToken}` }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
      accessToken: response.headers.get('st-access-token'),
    };
  }

  const fields = (email: string, password: string) => ({
    formFields: [
      { id: 'email', value: email },
      { id: 'password', value: password },
    ],
  });

  it('signs up with a password, reaches the protected route, signs out, and the signed-out token is refused', async () => {
    const signUp = await call('POST', '/auth/signup', fields('ada@example.com', 'correct horse 1'));
    expect(signUp).toMatchObject({ status: 200, body: { status: 'OK', user: { emails: ['ada@example.com'] } } });
    const userId = (signUp.body.user as { id: string }).id;
    const { rows } = await core.db.pool.query('SELECT recipe_id, email FROM users WHERE user_id = $1', [userId]);
    expect(rows).toEqual([{ recipe_id: 'emailpassword', email: 'ada@example.com' }]);
    const sessions = async () =>
      (await core.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM session_info WHERE user_id = $1', [userId])).rows[0].n;

    const signIn = await call('POST', '/auth/signin', fields('ada@example.com', 'correct horse 1'));
    expect(signIn.body).toMatchObject({ status: 'OK', user: { id: userId } });
    const token = signIn.accessToken!;
    expect(await call('GET', '/api/me', undefined, token)).toMatchObject({ status: 200, body: { userId, roles: [], metadata: {} } });
    expect((await call('GET', '/api/me')).status).toBe(401);

    expect(await sessions()).toBe(2);
    expect(await call('POST', '/auth/signout', undefined, token)).toMatchObject({ status: 200, body: { status: 'OK' } });
    expect(await sessions()).toBe(1);
    // checkDatabase: true asks the core, which no longer holds the session.
    expect((await call('GET', '/api/me', undefined, token)).status).toBe(401);
  });

  it('signs in with an emailed code (Passwordless), and serves the ThirdParty and EmailVerification routes', async () => {
    const created = await call('POST', '/auth/signinup/code', { email: 'grace@example.com' });
    expect(created.body).toMatchObject({ status: 'OK', flowType: 'USER_INPUT_CODE_AND_MAGIC_LINK' });
    const printed = output.split('\n').find((line) => line.includes('"to":"grace@example.com"'));
    const { code } = JSON.parse(printed!) as { code: string };
    const consumed = await call('POST', '/auth/signinup/code/consume', {
      preAuthSessionId: created.body.preAuthSessionId,
      deviceId: created.body.deviceId,
      userInputCode: code,
    });
    expect(consumed.body).toMatchObject({ status: 'OK', createdNewRecipeUser: true, user: { emails: ['grace@example.com'] } });
    expect(await call('GET', '/api/me', undefined, consumed.accessToken!)).toMatchObject({ status: 200 });

    expect(await call('GET', '/auth/user/email/verify', undefined, consumed.accessToken!)).toMatchObject({
      status: 200,
      body: { status: 'OK', isVerified: true },
    });
    expect(await call('GET', '/auth/loginmethods')).toMatchObject({
      status: 200,
      body: {
        status: 'OK',
        emailPassword: { enabled: true },
        passwordless: { enabled: true },
        thirdParty: { enabled: true, providers: [] },
      },
    });
  });

  it("is the README's app snippet", () => {
    const source = fs.readFileSync(example, 'utf8');
    const snippet = source.slice(source.indexOf('// README:begin\n') + '// README:begin\n'.length, source.indexOf('// README:end'));
    expect(snippet.length).toBeGreaterThan(500);
    expect(fs.readFileSync('README.md', 'utf8')).toContain(`\`\`\`js\n${snippet}\`\`\``);
  });
});
