import { PasswordHasher, type VerifyOutcome } from '../hashing/registry.js';
import type { HashConfig } from './readers/hash-config.js';

// The platform's defaults: most projects never change them, so a hash that verifies with them
// points straight at the wrong value in --hash-config.
const PLATFORM_DEFAULTS = { saltSeparator: 'Bw==', rounds: 8, memCost: 14 };

/** Verifies passwords against hashes built from the export, with the same code the core runs. */
export function localHasher(hashConfig: HashConfig | undefined): PasswordHasher {
  return new PasswordHasher({
    signerKey: hashConfig?.signerKey.toString('base64'),
    newHashAlgorithm: 'BCRYPT',
    bcryptLogRounds: 10,
    argon2: { iterations: 1, memoryKb: 1024, parallelism: 1 },
    argon2PoolSize: 1,
    scryptPoolSize: 1,
    bcryptPoolSize: 1,
  });
}

/**
 * Why the core said WRONG_CREDENTIALS_ERROR for a canary user. `local` is the outcome of the same
 * check on this machine with --hash-config; comparing both tells the core's configuration apart
 * from the export's parameters.
 */
export async function explainWrongCredentials(input: {
  email: string;
  password: string;
  hash: string;
  local: VerifyOutcome;
  existedBefore: boolean;
  hasher: PasswordHasher;
}): Promise<string> {
  const { email, hash, local } = input;
  const scrypt = hash.startsWith('$f_scrypt$');
  if (local === 'MATCH') {
    if (input.existedBefore) {
      return `${email} already existed in the core with another password hash (imported earlier with other settings?): remove that user or pick another canary`;
    }
    return scrypt
      ? `the password verifies on this machine with --hash-config, but not in the core: the core's idp_password_hashing_signer_key is not the base64_signer_key of --hash-config`
      : `the password verifies on this machine against the exported hash, but not in the core: check that the core runs this version and that the user was not changed since`;
  }
  if (local === 'UNPARSABLE') return `the hash built from the export for ${email} does not parse: the exported hash or salt is damaged`;
  if (!scrypt) {
    return `the password does not match the exported hash of ${email}: the canary password is wrong, or the hash export belongs to another tenant or connection than the user export`;
  }
  const fix = await findParameterFix(input.hasher, input.password, hash);
  if (fix) return `the password verifies with ${fix}: correct --hash-config (copy the hash_config block from the console again)`;
  // The self-check ran before any canary and proved the core holds the signer key of --hash-config; what is left
  // is most often the password typed on the command line.
  return [
    `the password given does not verify against the exported hash of ${email}; the most likely cause is a mistyped canary password`,
    '(put it in single quotes, and check its case and keyboard layout). The self-check showed the core holds the signer key of --hash-config.',
    'If the password is right: the hash_config block may belong to another project than the export (copy it again from the',
    'console of the exported project), or a passwordHash or salt was altered after the export (+/ and -_ must not be mixed or swapped).',
  ].join('\n  ');
}

async function findParameterFix(hasher: PasswordHasher, password: string, hash: string): Promise<string | undefined> {
  const pieces = hash.split('$');
  const current = {
    saltSeparator: pieces[6]?.slice(2) ?? '',
    rounds: Number(pieces[5]?.slice(2)),
    memCost: Number(pieces[4]?.slice(2)),
  };
  const variants: { label: string; saltSeparator: string; rounds: number; memCost: number }[] = [];
  const defaults = PLATFORM_DEFAULTS;
  if (current.saltSeparator !== defaults.saltSeparator) {
    variants.push({ ...current, saltSeparator: defaults.saltSeparator, label: `base64_salt_separator ${defaults.saltSeparator}` });
  }
  if (current.rounds !== defaults.rounds || current.memCost !== defaults.memCost) {
    variants.push({
      ...current,
      rounds: defaults.rounds,
      memCost: defaults.memCost,
      label: `rounds ${defaults.rounds} and mem_cost ${defaults.memCost}`,
    });
    if (current.saltSeparator !== defaults.saltSeparator) {
      variants.push({
        ...defaults,
        label: `base64_salt_separator ${defaults.saltSeparator}, rounds ${defaults.rounds} and mem_cost ${defaults.memCost}`,
      });
    }
  }
  for (const variant of variants) {
    const candidate = [...pieces.slice(0, 4), `m=${variant.memCost}`, `r=${variant.rounds}`, `s=${variant.saltSeparator}`].join('$');
    if ((await hasher.verify(password, candidate)) === 'MATCH') return variant.label;
  }
  return undefined;
}
