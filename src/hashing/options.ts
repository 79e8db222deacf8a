import type { Config } from '../config/config.js';
import type { HashingOptions } from './registry.js';

export function hashingOptionsFromConfig(config: Readonly<Config>): HashingOptions {
  return {
    signerKey: config.idp_password_hashing_signer_key,
    newHashAlgorithm: config.password_hashing_alg,
    bcryptLogRounds: config.bcrypt_log_rounds,
    argon2: { iterations: config.argon2_iterations, memoryKb: config.argon2_memory_kb, parallelism: config.argon2_parallelism },
    argon2PoolSize: config.argon2_hashing_pool_size,
    scryptPoolSize: config.idp_password_hashing_pool_size,
    bcryptPoolSize: config.bcrypt_hashing_pool_size,
    importLimits: {
      maxMemoryKib: config.imported_hash_max_memory_kib,
      maxArgon2WorkKib: config.imported_hash_max_argon2_work_kib,
      maxBcryptCost: config.imported_hash_max_bcrypt_cost,
      maxPbkdf2Iterations: config.imported_hash_max_pbkdf2_iterations,
    },
  };
}
