import type { HashingAlgorithm } from './verifier.js';

// What the hasher reports about password verifications; metrics listen, the hasher does not know about them.
export interface VerificationReport {
  algorithm: HashingAlgorithm;
  matched: boolean;
  // Time spent waiting for a slot of the algorithm's concurrency limit, then verifying.
  waitSeconds: number;
  verifySeconds: number;
}

export interface HashingObserver {
  verified(report: VerificationReport): void;
  // A verification refused because its queue was full or its deadline passed (answered 503).
  rejected(algorithm: HashingAlgorithm): void;
}

export interface QueueState {
  running: number;
  queued: number;
}
