import crypto from 'node:crypto';
import { computeIdpScrypt } from '../hashing/idp-scrypt.js';
import { CliError } from './cli-error.js';
import type { CoreClient } from './core-client.js';
import type { HashConfig } from './readers/hash-config.js';

/**
 * Before a single user is sent (in a dry run too): the core is asked whether a random password matches its hash,
 * computed here with the export's hash parameters (--hash-config); it stores nothing. A core whose signer key differs
 * from the export's answers no, and the run stops before every password user is imported unable to sign in. No
 * user's password is needed. A core without that route gets a synthetic user imported, signed in as and removed.
 * Returns what the report says about it.
 */
export async function checkCoreAgainstHashConfig(client: CoreClient, synthetic: Promise<SyntheticUser>): Promise<string> {
  const { password, passwordHash } = await synthetic;
  const answer = await client.checkPasswordHash(passwordHash, 'idp_scrypt', password);
  if (answer !== undefined && 'refused' in answer)
    throw new CliError(`hash self-check: the core refused a hash made with --hash-config: ${answer.refused}`);
  const status =
    answer === undefined ? await signInAsSynthetic(client, password, passwordHash) : answer.verified ? 'OK' : 'WRONG_CREDENTIALS_ERROR';
  if (status === 'OK') return 'the core verified a password hashed with --hash-config (signer key and parameters match)';
  throw new CliError(
    status === 'WRONG_CREDENTIALS_ERROR'
      ? "hash self-check failed: the core does not verify a password hashed here with --hash-config, so the core's idp_password_hashing_signer_key is not the base64_signer_key of --hash-config. Set it on the core (env IDP_PASSWORD_HASHING_SIGNER_KEY) to the hash_config block's base64_signer_key, restart it, and run again. Nothing was imported."
      : `hash self-check failed: signing in as a user hashed with --hash-config answered ${status}. Nothing was imported.`,
  );
}

async function signInAsSynthetic(client: CoreClient, password: string, passwordHash: string): Promise<string> {
  const email = `self-check-${crypto.randomBytes(8).toString('hex')}@identity-core-migrate.example.com`;
  const imported = await client.importUser({
    loginMethods: [{ recipeId: 'emailpassword', email, passwordHash, hashingAlgorithm: 'idp_scrypt' }],
  });
  if (!imported.ok) throw new CliError(`hash self-check: the core refused a user hashed with --hash-config: ${imported.errors.join('; ')}`);
  try {
    return await client.signIn(email, password);
  } finally {
    await client.removeUser(imported.userId);
  }
}

export interface SyntheticUser {
  password: string;
  passwordHash: string;
}

/** A random password and its hash with the export's parameters; made before the core is first asked anything. */
export async function hashSynthetic(hashConfig: HashConfig): Promise<SyntheticUser> {
  const password = crypto.randomBytes(18).toString('base64url');
  const salt = crypto.randomBytes(12);
  const separator = Buffer.from(hashConfig.saltSeparator, 'base64');
  const parsed = { hash: Buffer.alloc(0), salt, separator, memCost: hashConfig.memCost, rounds: hashConfig.rounds };
  const hash = await computeIdpScrypt(password, parsed, hashConfig.signerKey);
  const passwordHash =
    `$f_scrypt$${hash.toString('base64')}$${salt.toString('base64')}` +
    `$m=${hashConfig.memCost}$r=${hashConfig.rounds}$s=${hashConfig.saltSeparator}`;
  return { password, passwordHash };
}
