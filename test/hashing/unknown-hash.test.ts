import { describe, expect, it } from 'vitest';
import { describeUnknownHash } from '../../src/hashing/unknown-hash.js';
import { BCRYPT_VECTORS } from './vectors.js';

const BCRYPT = BCRYPT_VECTORS[0].hash;
const SHELL = 'the $-prefixed parts are missing, as when a shell expands them as variables: quote the hash with single quotes';
const NO_DOLLAR = 'the leading $ is missing (was the hash cut or passed through a template?)';
const PLAIN = 'this is not a hash format this core knows (a plain-text password, or a bare digest without its prefix?)';

describe('reasons for strings no format recognises', () => {
  it.each([
    {
      description: '$2c$',
      hash: `$2c${BCRYPT.slice(3)}`,
      reason: '$2c$ is not a bcrypt variant this core verifies (bcrypt writes $2a$, $2b$, $2x$ or $2y$)',
    },
    { description: 'plain-text password', hash: 'correct horse battery staple', reason: PLAIN },
    { description: 'bare hex digest', hash: '5f4dcc3b5aa765d61d8327deb882cf99', reason: PLAIN },
    // What `echo "$2b$10$N9qo8…"` prints: $2, $1 and $N9qo8… expand to nothing.
    { description: 'bcrypt after shell expansion', hash: 'b0', reason: SHELL },
    { description: 'bcrypt after shell expansion, salt starting with ./', hash: 'b0./abc', reason: SHELL },
    // `"$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaA"`: $argon2id, $v, $m, $c2F…, $aGF… expand to nothing.
    { description: 'argon2 after shell expansion', hash: '=19=65536,t=3,p=4', reason: SHELL },
    { description: 'bcrypt without its leading $', hash: BCRYPT.slice(1), reason: NO_DOLLAR },
    { description: 'argon2 without its leading $', hash: 'argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaA', reason: NO_DOLLAR },
    { description: 'an unknown $-format says nothing more', hash: '$md5$abc', reason: undefined },
  ])('$description', ({ hash, reason }) => {
    expect(describeUnknownHash(hash)).toBe(reason);
  });
});
