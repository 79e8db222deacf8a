import type { Config } from '../config/config.js';
import type { HashingOptions } from './registry.js';

export function hashingOptionsFromConfig(config: Readonly<Config>): HashingOptions {
  return {
    signerKey: config.idp_password_hashing_signer_key,
    namedSignerKeys: config.idp_password_hashing_signer_keys,
    newHashAlgorithm: config.password_hashing_alg,
    bcryptLogRounds: config.bcrypt_log_rounds,
    argon2: { iterations: config.argon2_iterations, memoryKb: config.argon2_memory_kb, parallelism: config.argon2_parallelism },
    argon2PoolSize: config.argon2_hashing_pool_size,
    scryptPoolSize: config.idp_password_hashing_pool_size,
    bcryptPoolSize: config.bcrypt_hashing_pool_size,
    scheduling: {
      concurrency: config.password_verification_concurrency,
      memoryBudgetBytes: config.password_verification_memory_budget_mb * 1024 * 1024,
      queueLimit: config.password_verification_queue_limit,
      deadlineMs: config.password_verification_deadline_ms,
    },
    importLimits: {
      maxMemoryKib: config.imported_hash_max_memory_kib,
      maxArgon2WorkKib: config.imported_hash_max_argon2_work_kib,
      maxBcryptCost: config.imported_hash_max_bcrypt_cost,
      maxPbkdf2Iterations: config.imported_hash_max_pbkdf2_iterations,
      maxCryptRounds: config.imported_hash_max_crypt_rounds,
    },
  };
}
