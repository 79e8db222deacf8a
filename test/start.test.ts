import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildIfStale, staleReason } from '../scripts/build-if-stale.mjs';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-start-'));

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start', () => {
  it('runs the built server without compiling, and SIGTERM sent to npm stops the server and its embedded database', async () => {
    buildIfStale(process.cwd());
    const dataDir = path.join(tempDir(), 'data');
    fs.chmodSync(path.dirname(dataDir), 0o755);
    const npm = spawn('npm', ['start', '--', '--port=0', '--host=127.0.0.1', '--config=test/fixtures/empty.yaml'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), EMBEDDED_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk) => (output += chunk));
    npm.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    const listening = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
      const timer = setInterval(() => {
        const line = output.split('\n').find((candidate) => candidate.includes('Server listening at'));
        if (!line) return;
        clearInterval(timer);
        const { msg, pid } = JSON.parse(line) as { msg: string; pid: number };
        resolve({ url: /(http:\/\/\S+)/.exec(msg)![1], pid });
      }, 20);
      void exited.then((code) => {
        clearInterval(timer);
        reject(new Error(`npm start exited with ${code}: ${output}`));
      });
    });
    expect(output).not.toContain('compiling');
    expect((await fetch(`${listening.url}/hello`)).status).toBe(200);
    expect(fs.existsSync(path.join(dataDir, 'postmaster.pid'))).toBe(true);

    npm.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('SIGTERM received');
    expect(isRunning(listening.pid)).toBe(false);
    // PostgreSQL removes its pid file when it has shut down.
    expect(fs.existsSync(path.join(dataDir, 'postmaster.pid'))).toBe(false);
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }, 90_000);
});

describe('the freshness check of dist/', () => {
  function tree(files: Record<string, number>): string {
    const root = tempDir();
    for (const [file, secondsAgo] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), '');
      const time = new Date(Date.now() - secondsAgo * 1000);
      fs.utimesSync(path.join(root, file), time, time);
    }
    return root;
  }

  const rebuild = 'the sources changed since dist/ was built';
  it.each([
    ['a build newer than every source', { 'src/a.ts': 60, 'src/lib/b.ts': 50, 'tsconfig.json': 100, 'dist/server.js': 10 }, undefined],
    ['a source changed after the build', { 'src/a.ts': 60, 'src/lib/b.ts': 5, 'dist/server.js': 10 }, rebuild],
    ['the compiler settings changed after the build', { 'src/a.ts': 60, 'tsconfig.build.json': 5, 'dist/server.js': 10 }, rebuild],
    ['no build yet', { 'src/a.ts': 60 }, 'dist/ has not been built'],
    ['an image without sources', { 'dist/server.js': 10 }, undefined],
  ])('%s', (_name, files, reason) => {
    expect(staleReason(tree(files))).toBe(reason);
  });
});

describe('npm run build', () => {
  it('makes the command one file that loads no module of the project but itself, and runs', async () => {
    buildIfStale(process.cwd());
    const command = fs.readFileSync('dist/cli/main.js', 'utf8');
    const imported = [...command.matchAll(/^import .* from "([^"]+)";$/gm)].map((match) => match[1]);
    expect(imported.length).toBeGreaterThan(0);
    // Packages come from node_modules (the passkey import reads COSE keys with @simplewebauthn/server); no file of
    // the project is loaded beside the bundle.
    expect(imported.filter((specifier) => specifier.startsWith('.') || specifier.startsWith('/'))).toEqual([]);
    expect(command).not.toMatch(/\bimport\(["']\.{1,2}\//);
    const help = spawn(process.execPath, ['dist/cli/main.js', 'migrate', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    help.stdout.on('data', (chunk) => (output += chunk));
    help.stderr.on('data', (chunk) => (output += chunk));
    expect(await new Promise((resolve) => help.on('exit', resolve))).toBe(0);
    expect(output).toContain('identity-core migrate');
  });
});
