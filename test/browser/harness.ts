import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';

// What every browser test shares: the Chromium that scripts/install-test-tools.sh installs, the test page bundled
// with esbuild into a temporary folder the app serves, and calls into the page's `window.flows`.
export const chromiumPath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => fs.existsSync(candidate));
export const chromiumArgs = ['--no-sandbox', '--disable-dev-shm-usage'];

const pageDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'page');

/** A temporary folder holding `index.html` and `bundle.js` (the page's `entry`, a file of test/browser/page, bundled). */
export async function bundlePage(entry: string): Promise<{ dir: string; remove(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-browser-'));
  fs.copyFileSync(path.join(pageDir, 'index.html'), path.join(dir, 'index.html'));
  await build({
    entryPoints: [path.join(pageDir, entry)],
    outfile: path.join(dir, 'bundle.js'),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    logLevel: 'silent',
  });
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `window.flows[name](...args)` in the page and answers its result. */
export function flowRunner<F extends { [K in keyof F]: (...args: never[]) => Promise<unknown> }>() {
  return <K extends keyof F & string>(page: Page, name: K, ...args: Parameters<F[K]>): Promise<Awaited<ReturnType<F[K]>>> =>
    page.evaluate(
      ([flow, flowArgs]) =>
        (window as unknown as { flows: Record<string, (...a: unknown[]) => Promise<unknown>> }).flows[flow](...flowArgs),
      [name, args] as [string, unknown[]],
    ) as Promise<Awaited<ReturnType<F[K]>>>;
}
