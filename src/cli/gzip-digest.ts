import { Worker } from 'node:worker_threads';
import { gzipBombError, gzipOutputLimit, truncatedGzipError, unreadableGzipError } from './readers/file-source.js';

// The export's digest pass reads every byte before anything is sent; for a .gz it inflates them too (output thrown
// away, bounded like the reader's), so a file cut short or corrupted is refused before the first batch, not after it.
// On a thread of its own: inflating a large export takes seconds the first batches are read in meanwhile.
const GZIP_DIGEST_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const crypto = require('node:crypto');
const fs = require('node:fs');
const zlib = require('node:zlib');
(async () => {
  const { path, limit } = workerData;
  const hash = crypto.createHash('sha256');
  const inflate = zlib.createGunzip();
  let produced = 0;
  const ended = new Promise((resolve, reject) => {
    inflate.on('data', (chunk) => {
      produced += chunk.length;
      if (produced > limit) inflate.destroy(Object.assign(new Error('bomb'), { code: 'BOMB' }));
    });
    inflate.on('end', resolve);
    inflate.on('error', reject);
  });
  ended.catch(() => {});
  for await (const chunk of fs.createReadStream(path, { highWaterMark: 4 * 1024 * 1024 })) {
    hash.update(chunk);
    if (!inflate.write(chunk)) await Promise.race([new Promise((resolve) => inflate.once('drain', resolve)), ended]);
  }
  inflate.end();
  await ended;
  parentPort.postMessage({ digest: hash.digest('hex') });
})().catch((error) => parentPort.postMessage({ code: error.code, message: error.message }));
`;

type Answer = { digest: string } | { code?: string; message: string };

/** SHA-256 of a gzip file's bytes, taken while checking that they inflate to the end (trailer CRC and size included). */
export function gzipDigest(path: string, totalBytes: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const worker = new Worker(GZIP_DIGEST_THREAD, { eval: true, workerData: { path, limit: gzipOutputLimit(totalBytes) } });
    const stop = () => {
      reject(signal?.reason);
      void worker.terminate();
    };
    signal?.addEventListener('abort', stop, { once: true });
    worker.once('message', (answer: Answer) => {
      if ('digest' in answer) return resolve(answer.digest);
      if (answer.code === 'BOMB') return reject(gzipBombError(path));
      reject(answer.code === 'Z_BUF_ERROR' ? truncatedGzipError(path) : unreadableGzipError(path, answer.message));
    });
    worker.once('error', reject);
    worker.once('exit', () => {
      signal?.removeEventListener('abort', stop);
      reject(new Error(`the digest of ${path} stopped before it was taken`));
    });
  });
}
