import type { PasswordHasher } from '../hashing/registry.js';
import type { ImportUser } from './types.js';

/**
 * Plain-text passwords never reach the queue table: each is hashed with the configured algorithm before its row is
 * written, so a row that fails later, a listing of the queue or a copy of the table holds no password. A given
 * (validated) hash wins when both are present, as it does at import.
 */
export async function hashPlainTextPasswords(users: ImportUser[], hasher: PasswordHasher, algorithm: string): Promise<void> {
  await Promise.all(
    users
      .flatMap((user) => user.loginMethods)
      .map(async (method) => {
        const password = method.plainTextPassword;
        if (password === undefined) return;
        delete method.plainTextPassword;
        if (method.passwordHash !== undefined && method.hashingAlgorithm !== undefined) return;
        method.passwordHash = await hasher.hash(password, { background: true });
        method.hashingAlgorithm = algorithm;
      }),
  );
}
