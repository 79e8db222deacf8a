import type { HashCostLimits } from './format.js';

/**
 * Import bounds, chosen so that one verification of the costliest hash each allows takes about a second on this
 * 2-core machine while it is busy (load 11–15; `npx vite-node bench/tools/hash-costs.ts`, next to bcrypt cost 10 at
 * 70–150 ms in the same runs; idle is two to three times faster). Operators whose export legitimately needs more
 * raise the named config key; a refusal names it. The earlier bounds (256 MiB, m × t 512 MiB, 1,000,000 SHA-crypt
 * rounds) allowed 1.2–5.3 s per wrong guess, which let a few connections hold every thread.
 * - Memory 128 MiB: OWASP's scrypt line (N=2^17, r=8) and every argon2id line (19–46 MiB), RFC 9106's second profile
 *   (64 MiB); Kratos accepts scrypt up to 128 MiB. scrypt ln=17 r=8: 0.5 s busy (ln=18: 1.2–2.0 s).
 * - argon2 m × t 256 MiB: RFC 9106's 64 MiB with t=3, Bitwarden's 64 MiB t=3, Keycloak's 7 MiB t=5, and this core's
 *   own default (86 MiB t=1). m=128 MiB t=2: 0.6 s busy (256 MiB t=2: 1.3–1.7 s).
 * - bcrypt cost 13: exports use 10–12; each step doubles the time. Cost 13: 0.6–1.0 s busy.
 * - PBKDF2 1,500,000 iterations × output blocks: the defaults of Django 4.2–6.0 (600,000–1,200,000; Django raises
 *   it about a fifth per feature release, the bound leaves room for one more), Werkzeug 3.1 (1,000,000), Spring
 *   Security 5.8+ (310,000 SHA-256) and ASP.NET Core Identity v3 (100,000 SHA-512, counted 200,000) import as they
 *   are; OWASP's PBKDF2-HMAC-SHA256 figure is 600,000. SHA-256 at 1,500,000: 0.9 s at load 18, 7× bcrypt 10 in the
 *   same run; SHA-512 iterations count twice.
 * - SHA-crypt 700,000 rounds: passlib's defaults (535,000 sha256, 656,000 sha512) import as they are. The rounds
 *   loop runs in WebAssembly on a worker thread (sha-crypt-threads.ts) at about 0.6 × libxcrypt's speed
 *   (`npm run bench:sha-crypt`): 700,000 rounds of sha512-crypt: 1.2 s at load 18, 9× bcrypt 10 in the same run
 *   (bcrypt 13: 11×).
 */
/**
 * From these parameters on a verification is COSTLY: about four ordinary sign-ins (bcrypt cost 10) or more on this
 * machine (see bench/tools/hash-costs.ts). The core's own new hashes (bcrypt 11, argon2id 86 MiB t=1) stay below.
 */
export const COSTLY_FROM = {
  bcryptCost: 12,
  /** argon2 m × t. */
  argon2WorkKib: 131_072,
  /** scrypt 128·N·r·p. */
  scryptMemoryBytes: 96 * 1024 * 1024,
  /** PBKDF2 iterations × output blocks (SHA-512 iterations count twice: they cost about that much more here). */
  pbkdf2Work: 300_000,
  /** sha512-crypt; sha256-crypt rounds cost about half as much and are held to the same number. */
  shaCryptRounds: 350_000,
  phpassLog2Rounds: 16,
} as const;

export const DEFAULT_COST_LIMITS: Readonly<HashCostLimits> = {
  maxMemoryKib: 131_072,
  maxArgon2WorkKib: 262_144,
  maxBcryptCost: 13,
  maxPbkdf2Iterations: 1_500_000,
  maxCryptRounds: 700_000,
};
