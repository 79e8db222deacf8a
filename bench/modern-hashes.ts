// Verifications per second of the PBKDF2, scrypt, ASP.NET Identity and bcrypt-sha256 formats next to the raw
// primitive with the same parameters, measured in the same run:
// - primitive: node:crypto's async pbkdf2 / scrypt, or the native bcrypt binding, on the same inputs;
// - format: the format's own verify (decode done, constant-time compare) on a hash parsed once — the ≥ 0.9 × goal;
// - full path: PasswordHasher.verify as sign-in calls it, the same hash each time: a hash of the INSTANT class (one
//   digest) is then parsed once and verified at once; any other is detected, parsed and scheduled on every call;
// - uncached: the full path with the hasher's cache of parsed INSTANT hashes off (an account not signed in to lately).
// The hashes are the published vectors the tests also use. Run: npx vite-node bench/modern-hashes.ts [--seconds=N]
import { createHmac, pbkdf2, scrypt } from 'node:crypto';
import bcrypt from 'bcrypt';
import { benchHashCases, numberArgument, type HashCase } from './lib/hash-sides.js';

const seconds = numberArgument('seconds', 2);
const ROUNDS = numberArgument('rounds', 3);

const pbkdf2Async = (password: string, salt: Buffer, iterations: number, length: number, digest: string) =>
  new Promise((resolve, reject) => pbkdf2(password, salt, iterations, length, digest, (e, key) => (e ? reject(e) : resolve(key))));
const scryptAsync = (password: string, salt: Buffer, length: number, N: number, r: number, p: number) =>
  new Promise((resolve, reject) =>
    scrypt(password, salt, length, { N, r, p, maxmem: 128 * N * r + 1024 * 1024 }, (e, key) => (e ? reject(e) : resolve(key))),
  );
const b64 = (text: string) => Buffer.from(text, 'base64');

const ASPNET_V3 = b64('AQAAAAEAACcQAAAAEAABAgMEBQYHCAkKCwwNDg+yWU7rLgUwPZb1Itsmra7cbxw2EFpwpVFIEtP+JIuUEw==');
const PKCS5S2 = b64('c4xaeTQM0lUieMS3V5voiexyX9XhqC2dBd5ecVy60IPksHChwoTAVYFrhsgoq8/p');
const CASES: HashCase[] = [
  {
    name: 'PBKDF2 PHC sha256, 100,000 iterations',
    hash: '$pbkdf2-sha256$i=100000,l=32$1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc$QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI',
    password: 'test',
    primitive: () => pbkdf2Async('test', b64('1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc'), 100_000, 32, 'sha256'),
  },
  {
    name: 'PBKDF2 Django sha256, 390,000 iterations',
    hash: 'pbkdf2_sha256$390000$seasalt$8xBlGd3jVgvJ+92hWPxi5ww0uuAuAnKgC45eudxro7c=',
    password: 'lètmein',
    primitive: () => pbkdf2Async('lètmein', Buffer.from('seasalt'), 390_000, 32, 'sha256'),
  },
  {
    name: 'PBKDF2 Atlassian {PKCS5S2}, sha1 10,000',
    hash: `{PKCS5S2}${PKCS5S2.toString('base64')}`,
    password: 'admin',
    primitive: () => pbkdf2Async('admin', PKCS5S2.subarray(0, 16), 10_000, 32, 'sha1'),
  },
  {
    name: 'ASP.NET Identity v3, sha256 10,000',
    hash: `$aspnet-identity$${ASPNET_V3.toString('base64')}`,
    password: 'my password',
    primitive: () => pbkdf2Async('my password', ASPNET_V3.subarray(13, 29), 10_000, 32, 'sha256'),
  },
  {
    name: 'scrypt Django N=16384 r=8 p=1',
    hash: 'scrypt$16384$seasalt$8$1$Qj3+9PPyRjSJIebHnG81TMjsqtaIGxNQG/aEB/NYafTJ7tibgfYz71m0ldQESkXFRkdVCBhhY8mx7rQwite/Pw==',
    password: 'lètmein',
    primitive: () => scryptAsync('lètmein', Buffer.from('seasalt'), 64, 16384, 8, 1),
  },
  {
    name: 'scrypt Werkzeug N=32768 r=8 p=1',
    hash: 'scrypt:32768:8:1$yvEVXgVQfLiMO5Ft$fd7571ea830ceaad17d20e23fbc3e618d69d1059a66335bdd75e2e67b6db38d6b18f919a2e5992772b554197bf49fc687254b3ccdb463e4d70df4eecccd80a05',
    password: '123456',
    primitive: () => scryptAsync('123456', Buffer.from('yvEVXgVQfLiMO5Ft'), 64, 32768, 8, 1),
  },
  {
    name: 'bcrypt-sha256 passlib v2, cost 5',
    hash: '$bcrypt-sha256$v=2,t=2b,r=5$5Hg1DKFqPE8C2aflZ5vVoe$wOK1VFFtS8IGTrGa7.h5fs0u84qyPbS',
    password: 'password',
    primitive: () => {
      const input = createHmac('sha256', '5Hg1DKFqPE8C2aflZ5vVoe').update('password').digest('base64');
      return bcrypt.hash(input, '$2b$05$5Hg1DKFqPE8C2aflZ5vVoe');
    },
  },
];

// One slot per pool, as the primitive runs one at a time too.
await benchHashCases('modern-hashes', CASES, { seconds, rounds: ROUNDS });
