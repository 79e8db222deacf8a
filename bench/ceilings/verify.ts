import { performance } from 'node:perf_hooks';
import { argon2Format } from '../../src/hashing/argon2.js';
import { bcryptFormat } from '../../src/hashing/bcrypt.js';
import { idpScryptFormat } from '../../src/hashing/idp-scrypt.js';
import type { HashFormat } from '../../src/hashing/format.js';
import { decodeEitherBase64 } from '../../src/base64.js';
import type { Algorithm, Credential } from '../lib/credentials.js';
import { benchSignerKey } from '../lib/servers.js';
import { percentile } from '../lib/stats.js';

const verifiers: Record<Algorithm, HashFormat<unknown>> = {
  bcrypt: bcryptFormat as HashFormat<unknown>,
  argon2: argon2Format as HashFormat<unknown>,
  scrypt: idpScryptFormat as HashFormat<unknown>,
};

export interface VerifyCeiling {
  concurrency: number;
  completed: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU of this whole process (every thread) per verification. */
  cpuPerVerifyUs: number;
}

/**
 * The sign-in ceiling: the project's own per-algorithm verify functions (the native libraries and node:crypto
 * underneath), with no HTTP, no database and no limiter, `concurrency` at a time on this process's libuv
 * thread pool, over the same hashes the core verifies. Bounded by `seconds` and `maxOps`.
 */
export async function measureVerifyCeiling(
  algorithm: Algorithm,
  credentials: Credential[],
  options: { concurrency: number; seconds: number; maxOps: number },
): Promise<VerifyCeiling> {
  const verifier = verifiers[algorithm];
  const context = { signerKey: decodeEitherBase64(benchSignerKey) };
  const work = credentials.map(({ password, hash }) => {
    const parsed = verifier.parse(hash);
    if (!parsed.ok) throw new Error(`bench ${algorithm} hash does not parse: ${parsed.reason}`);
    return { password, parsed: parsed.value };
  });
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline && next < options.maxOps) {
      const item = work[next++ % work.length];
      const begin = performance.now();
      if (!(await verifier.verify(item.password, item.parsed, context)))
        throw new Error(`${algorithm} ceiling: a correct password did not verify`);
      latencies.push(performance.now() - begin);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    concurrency: options.concurrency,
    completed: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuPerVerifyUs: latencies.length > 0 ? (cpu.user + cpu.system) / latencies.length : 0,
  };
}
