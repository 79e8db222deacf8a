// Reasons for strings that no format recognises, so an engineer mid-cutover sees what went wrong with the export
// instead of a bare "invalid format". These are guesses from the string's shape, worded as such.

const BCRYPT_ALPHABET_53 = /^[./A-Za-z0-9]{53}$/;

export function describeUnknownHash(hash: string): string | undefined {
  const variant = /^\$2([^abxy$])\$/.exec(hash);
  if (variant) return `$2${variant[1]}$ is not a bcrypt variant this core verifies (bcrypt writes $2a$, $2b$, $2x$ or $2y$)`;
  if (/^(2[abxy]\$\d\d\$|argon2(id|i|d)\$|f_scrypt\$)/.test(hash)) {
    return 'the leading $ is missing (was the hash cut or passed through a template?)';
  }
  if (looksShellExpanded(hash)) {
    return 'the $-prefixed parts are missing, as when a shell expands them as variables: quote the hash with single quotes';
  }
  // ASP.NET Identity blobs: v3 opens with 0x01 and a big-endian PRF number (AQAAAA…), v2 is 49 bytes opening with 0x00.
  if (/^AQAAAA[A-Za-z0-9+/]+={0,2}$/.test(hash) || /^AA[A-Za-z0-9+/]{64}==$/.test(hash)) {
    return 'this looks like an ASP.NET Identity blob: set hashingAlgorithm to aspnet_identity';
  }
  if (!/[$:{}]/.test(hash)) {
    return 'this is not a hash format this core knows (a plain-text password, or a bare digest without its prefix?)';
  }
  return undefined;
}

/** `"$2b$10$…"` in double quotes loses `$2`, `$1`, `$N9q…`; argon2 loses `$argon2id`, `$v`, `$m`, leaving `=19=65536,t=3,p=4`. */
function looksShellExpanded(hash: string): boolean {
  if (hash.includes('$')) return false;
  if (/^=\d+=\d+,t=\d+,p=\d+/.test(hash) || /(^|[^a-z])m=\d+,t=\d+,p=\d+/.test(hash)) return true;
  return /^[abxy]\d[./A-Za-z0-9]*$/.test(hash) && hash.length < 60 && !BCRYPT_ALPHABET_53.test(hash);
}
