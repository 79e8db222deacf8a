// Verifications per second of each legacy hash format next to its raw primitive, measured in the same run:
// - primitive: the same digest calls on the same inputs in a plain synchronous loop;
// - format: the format's own verify (sliced rounds, yields, constant-time compare) on a hash parsed once, which is
//   what the ≥ 0.9 × goal is about;
// - full path: PasswordHasher.verify as sign-in calls it, the same hash each time: a hash of the INSTANT class (one
//   digest) is then parsed once and verified at once; any other is detected, parsed and scheduled on every call;
// - uncached: the full path with the hasher's cache of parsed INSTANT hashes off (an account not signed in to lately).
// Run: npx vite-node bench/legacy-hashes.ts [--seconds=N]
import { createHmac, hash } from 'node:crypto';
import { benchHashCases, numberArgument, type HashCase } from './lib/hash-sides.js';

// `hash` is the prefix; completeHash adds the checksum.
type Case = HashCase;

const seconds = numberArgument('seconds', 2);
const ROUNDS = numberArgument('rounds', 5);

/** The 42 round inputs of md5-crypt / SHA-crypt (the shapes of src/hashing/crypt-rounds.ts), each hashed once per round. */
function cryptRounds(algorithm: string, digestLength: number, p: Buffer, s: Buffer, rounds: number): () => void {
  const inputs = Array.from({ length: 42 }, (_, round) => {
    const parts = [round % 3 !== 0 ? s : undefined, round % 7 !== 0 ? p : undefined].filter((part) => part !== undefined);
    return Buffer.concat([p, ...parts, Buffer.alloc(digestLength)]);
  });
  return () => {
    for (let round = 0; round < rounds; round++) hash(algorithm, inputs[round % 42], 'buffer');
  };
}

function repeatedDigest(algorithm: string, inputLength: number, times: number): () => void {
  const input = Buffer.alloc(inputLength);
  return () => {
    for (let i = 0; i < times; i++) hash(algorithm, input, 'buffer');
  };
}

function saltedDigest(algorithm: string, salt: string): () => void {
  const saltBytes = Buffer.from(salt);
  return () => hash(algorithm, Buffer.concat([saltBytes, Buffer.from(password)]), 'buffer');
}

const password = 'correct horse';
const pw = Buffer.from(password);
const CASES: Case[] = [
  { name: 'md5-crypt', hash: '$1$Ab3./xyZ$', password, primitive: cryptRounds('md5', 16, pw, Buffer.from('Ab3./xyZ'), 1000) },
  {
    name: 'sha256-crypt rounds=5000',
    hash: '$5$Zq1w2e3r4t5y6u7i$',
    password,
    primitive: cryptRounds('sha256', 32, pw, Buffer.from('Zq1w2e3r4t5y6u7i'), 5000),
  },
  {
    name: 'sha512-crypt rounds=5000',
    hash: '$6$Zq1w2e3r4t5y6u7i$',
    password,
    primitive: cryptRounds('sha512', 64, pw, Buffer.from('Zq1w2e3r4t5y6u7i'), 5000),
  },
  {
    name: 'sha512-crypt rounds=656000',
    hash: '$6$rounds=656000$Zq1w2e3r4t5y6u7i$',
    password,
    primitive: cryptRounds('sha512', 64, pw, Buffer.from('Zq1w2e3r4t5y6u7i'), 656_000),
  },
  { name: 'phpass $P$B (2^13 md5)', hash: '$P$BZk4.mP9q', password, primitive: repeatedDigest('md5', 16 + pw.length, 2 ** 13) },
  { name: 'Drupal 7 $S$D (2^15 sha512)', hash: '$S$DZk4.mP9q', password, primitive: repeatedDigest('sha512', 64 + pw.length, 2 ** 15) },
  // The one-digest formats: the primitive includes encoding the password and joining it to the salt.
  { name: 'LDAP {SSHA512}', hash: '{SSHA512}', password, primitive: saltedDigest('sha512', '8bytesal') },
  { name: 'salted digest sha256', hash: '$sha256$pf=', password, primitive: saltedDigest('sha256', '5opmkgz03r') },
  { name: 'HMAC sha256', hash: '$hmac-sha256$', password, primitive: () => createHmac('sha256', 'key').update(password).digest() },
];

const cases = await Promise.all(CASES.map(async (testCase) => ({ ...testCase, hash: await completeHash(testCase) })));
await benchHashCases('legacy-hashes', cases, { seconds, rounds: ROUNDS });

/**
 * The bench hashes are completed here from their prefix with a checksum made by the project's own code, since
 * only throughput is measured; correctness is the tests' job (independent vectors).
 */
async function completeHash({ hash: prefix, password: plain }: Case): Promise<string> {
  const { md5CryptChecksum } = await import('../src/hashing/md5-crypt.js');
  const { shaCryptChecksum } = await import('../src/hashing/sha-crypt.js');
  const { phpassChecksum } = await import('../src/hashing/phpass-core.js');
  const bytes = Buffer.from(plain);
  if (prefix.startsWith('$1$')) return prefix + (await md5CryptChecksum(bytes, prefix.split('$')[2]));
  if (prefix.startsWith('$5$') || prefix.startsWith('$6$')) {
    const fields = prefix.split('$');
    const rounds = fields[2].startsWith('rounds=') ? Number(fields[2].slice(7)) : 5000;
    return prefix + (await shaCryptChecksum(prefix[1] === '5' ? 'sha256' : 'sha512', bytes, fields[fields.length - 2], rounds));
  }
  if (prefix.startsWith('$P$')) return prefix + (await phpassChecksum('md5', bytes, prefix.slice(4, 12), 13, 22));
  if (prefix.startsWith('$S$')) return prefix + (await phpassChecksum('sha512', bytes, prefix.slice(4, 12), 15, 43));
  const salt = Buffer.from('8bytesal');
  if (prefix === '{SSHA512}') {
    return prefix + Buffer.concat([hash('sha512', Buffer.concat([bytes, salt]), 'buffer'), salt]).toString('base64');
  }
  if (prefix === '$sha256$pf=') {
    const saltText = Buffer.from('5opmkgz03r');
    const digest = hash('sha256', Buffer.concat([saltText, bytes]), 'buffer');
    return `${prefix}${Buffer.from('{SALT}{PASSWORD}').toString('base64')}$${saltText.toString('base64')}$${digest.toString('base64')}`;
  }
  const mac = createHmac('sha256', 'key').update(bytes).digest();
  return `${prefix}${mac.toString('base64')}$${Buffer.from('key').toString('base64')}`;
}
