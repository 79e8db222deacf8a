import crypto from 'node:crypto';
import { computeIdpScrypt } from '../hashing/idp-scrypt.js';
import { CliError } from './cli-error.js';
import type { CoreClient } from './core-client.js';
import type { HashConfig } from './readers/hash-config.js';

/**
 * Before a single user is sent (in a dry run too), two questions to the core, neither storing anything nor needing
 * anyone's password: does it verify a random password hashed here with the export's signer key and salt separator
 * (--hash-config; at the format's lowest cost, as the core's key is what is checked), and would it import a hash with
 * the export's mem_cost and rounds. A core whose signer key differs from the export's answers no to the first, and
 * the run stops before every password user is imported unable to sign in. A core without that route gets a
 * synthetic user with the export's parameters imported, signed in as and removed. Returns what the report says.
 */
export async function checkCoreAgainstHashConfig(client: CoreClient, hashConfig: HashConfig): Promise<string> {
  const keyCheck = hashSynthetic({ ...hashConfig, ...LOWEST_COST });
  const [parameters, key] = await Promise.all([
    client.checkPasswordHash(hashWithParameters(hashConfig, crypto.randomBytes(64), crypto.randomBytes(12)), 'idp_scrypt'),
    keyCheck.then(({ password, passwordHash }) => client.checkPasswordHash(passwordHash, 'idp_scrypt', password)),
  ]);
  taken(parameters);
  const verified = taken(key)?.verified;
  const status =
    verified === undefined ? await signInAsSynthetic(client, await hashSynthetic(hashConfig)) : verified ? 'OK' : 'WRONG_CREDENTIALS_ERROR';
  if (status === 'OK') return 'the core verified a password hashed with --hash-config (signer key matches; it takes the parameters)';
  throw new CliError(
    status === 'WRONG_CREDENTIALS_ERROR' && hashConfig.keyName !== undefined
      ? `hash self-check failed: the core does not verify a password hashed here with --hash-config, so its idp_password_hashing_signer_keys entry ${hashConfig.keyName}:<key> does not hold the tenant's base64_signer_key. Set it on the core, restart it, and run again. Nothing was imported.`
      : status === 'WRONG_CREDENTIALS_ERROR'
        ? "hash self-check failed: the core does not verify a password hashed here with --hash-config, so the core's idp_password_hashing_signer_key is not the base64_signer_key of --hash-config. Set it on the core (env IDP_PASSWORD_HASHING_SIGNER_KEY) to the hash_config block's base64_signer_key, restart it, and run again. Nothing was imported."
        : `hash self-check failed: signing in as a user hashed with --hash-config answered ${status}. Nothing was imported.`,
  );
}

// The check's answer when the core took the hash (undefined: the core has no such route).
function taken(answer: { verified?: boolean } | { refused: string } | undefined): { verified?: boolean } | undefined {
  if (answer !== undefined && 'refused' in answer)
    throw new CliError(`hash self-check: the core refused a hash made with --hash-config: ${answer.refused}`);
  return answer;
}

// The format's lowest mem_cost and rounds: the signer key is checked as well at any cost, in a fraction of the time.
const LOWEST_COST = { memCost: 1, rounds: 1 };

async function signInAsSynthetic(client: CoreClient, { password, passwordHash }: SyntheticUser): Promise<string> {
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

interface SyntheticUser {
  password: string;
  passwordHash: string;
}

/** A random password and its hash with the parameters given. */
async function hashSynthetic(hashConfig: HashConfig): Promise<SyntheticUser> {
  const password = crypto.randomBytes(18).toString('base64url');
  const salt = crypto.randomBytes(12);
  const separator = Buffer.from(hashConfig.saltSeparator, 'base64');
  const parsed = { hash: Buffer.alloc(0), salt, separator, memCost: hashConfig.memCost, rounds: hashConfig.rounds };
  const hash = await computeIdpScrypt(password, parsed, hashConfig.signerKey);
  return { password, passwordHash: hashWithParameters(hashConfig, hash, salt) };
}

function hashWithParameters(hashConfig: HashConfig, hash: Buffer, salt: Buffer): string {
  return (
    `$f_scrypt$${hash.toString('base64')}$${salt.toString('base64')}` +
    `$m=${hashConfig.memCost}$r=${hashConfig.rounds}$s=${hashConfig.saltSeparator}` +
    (hashConfig.keyName === undefined ? '' : `$k=${hashConfig.keyName}`)
  );
}
