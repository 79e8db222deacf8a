import { Worker } from 'node:worker_threads';
import { JOB_DIGEST_OFFSET, type ShaCryptVariant } from './sha-crypt-job.js';
import { SHA_CRYPT_WASM } from './sha-crypt-wasm.generated.js';

/**
 * More threads than this never help: the verification scheduler runs at most its concurrency of verifications at
 * once, and a machine has few cores. Jobs beyond it wait here in order.
 */
const MAX_THREADS = 16;

// Each thread holds one instance of the rounds loop; a job is copied into its memory, run, and the digest sent back.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { exports } = new WebAssembly.Instance(new WebAssembly.Module(workerData), {});
const base = exports.jobBase();
parentPort.on('message', ({ variant, job, rounds, digestBytes }) => {
  const missingPages = Math.ceil((base + job.length) / 65536) - exports.memory.buffer.byteLength / 65536;
  if (missingPages > 0) exports.memory.grow(missingPages);
  new Uint8Array(exports.memory.buffer, base, job.length).set(job);
  (variant === 'sha256' ? exports.sha256Rounds : exports.sha512Rounds)(rounds);
  parentPort.postMessage(new Uint8Array(exports.memory.buffer, base + ${JOB_DIGEST_OFFSET}, digestBytes).slice());
});
`;

interface Job {
  message: { variant: ShaCryptVariant; job: Uint8Array; rounds: number; digestBytes: number };
  resolve: (digest: Buffer) => void;
  reject: (error: unknown) => void;
}

interface Thread {
  worker: Worker;
  job?: Job;
  failed?: boolean;
}

/** Worker threads running the SHA-crypt rounds loop, started when first needed and kept (unreferenced) for the next. */
class ShaCryptThreads {
  private readonly idle: Thread[] = [];
  private readonly waiting: Job[] = [];
  private threads = 0;
  private readonly module = Buffer.from(SHA_CRYPT_WASM, 'base64');

  run(message: Job['message']): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ message, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.waiting.length > 0) {
      const thread = this.idle.pop() ?? (this.threads < MAX_THREADS ? this.start() : undefined);
      if (!thread) return;
      const job = this.waiting.shift()!;
      thread.job = job;
      thread.worker.ref();
      thread.worker.postMessage(job.message);
    }
  }

  private start(): Thread {
    const thread: Thread = { worker: new Worker(THREAD_SOURCE, { eval: true, workerData: this.module }) };
    this.threads++;
    thread.worker.on('message', (digest: Uint8Array) => {
      const job = thread.job!;
      thread.job = undefined;
      thread.worker.unref();
      this.idle.push(thread);
      job.resolve(Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength));
      this.pump();
    });
    // A thread that fails is dropped with its job; the next job starts a new one.
    const fail = (error: unknown) => {
      if (thread.failed) return;
      thread.failed = true;
      const job = thread.job;
      thread.job = undefined;
      const index = this.idle.indexOf(thread);
      if (index !== -1) this.idle.splice(index, 1);
      this.threads--;
      job?.reject(error);
      this.pump();
    };
    thread.worker.on('error', fail);
    thread.worker.on('exit', (code) => fail(new Error(`the SHA-crypt thread stopped (exit code ${code})`)));
    return thread;
  }
}

const threads = new ShaCryptThreads();

/** The digest after `rounds` rounds of the job (see sha-crypt-job.ts), computed on a worker thread. */
export function runShaCryptRounds(variant: ShaCryptVariant, job: Buffer, rounds: number, digestBytes: number): Promise<Buffer> {
  return threads.run({ variant, job, rounds, digestBytes });
}
