import type { HashCostLimits } from './format.js';

/**
 * Import bounds, chosen so that one verification stays within 256 MiB and about 1 s on a 2-core machine. Operators
 * whose export legitimately needs more raise the named config key (for instance RFC 9106's first profile, argon2id
 * with 2 GiB and t=1). Times below were measured on this 2-core machine while it was busy (load 13); idle is faster.
 * - Memory 256 MiB: above OWASP's argon2id (19–46 MiB) and scrypt (N=2^17, r=8: 128 MiB) recommendations and
 *   RFC 9106's second profile (64 MiB); Kratos accepts scrypt up to 128 MiB. scrypt at 256 MiB: 2.1–2.5 s busy.
 * - argon2 m × t 512 MiB: every OWASP argon2id line (m=7168,t=5 … m=47104,t=1), RFC 9106's 64 MiB with t=3,
 *   Keycloak's default (7 MiB, t=5) and Bitwarden's (64 MiB, t=3). 256 MiB with t=2: 1.2–1.9 s busy.
 * - bcrypt cost 13: exports use 10–12; Kratos accepts up to 15; each step doubles the time. Cost 13: 0.9–1.6 s busy.
 * - PBKDF2 1,000,000 iterations × output blocks: Werkzeug 3.1's default, the largest default found; Kratos accepts
 *   10,000,000. Output blocks count because each block of the derived key repeats every iteration.
 *   PBKDF2-SHA512, 1,000,000 iterations, 64 bytes: 1.4–1.9 s busy (0.68 s idle per the format notes).
 */
export const DEFAULT_COST_LIMITS: Readonly<HashCostLimits> = {
  maxMemoryKib: 262_144,
  maxArgon2WorkKib: 524_288,
  maxBcryptCost: 13,
  maxPbkdf2Iterations: 1_000_000,
};
