import type { HashPool } from './format.js';

// What the hasher reports about password verifications; metrics listen, the hasher does not know about them.
export interface VerificationReport {
  // The format's id (BCRYPT, ARGON2, IDP_SCRYPT, ...) and the concurrency pool it runs in.
  algorithm: string;
  pool: HashPool;
  matched: boolean;
  // Time spent waiting for a slot of the pool, then verifying; no wait for an INSTANT hash, which takes no slot.
  waitSeconds?: number;
  verifySeconds: number;
}

export interface HashingObserver {
  verified(report: VerificationReport): void;
  // A verification refused because its pool's queue was full or its deadline passed (answered 503).
  rejected(pool: HashPool): void;
}

export interface QueueState {
  running: number;
  queued: number;
}
