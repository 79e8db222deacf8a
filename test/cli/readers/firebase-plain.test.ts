import { describe, expect, it } from 'vitest';
import { parseMapping } from '../../../src/cli/mapping.js';
import { firebaseRecord, fromJsonUser, type FirebaseOptions } from '../../../src/cli/readers/firebase-account.js';
import { plainFirebaseRecord } from '../../../src/cli/readers/firebase-plain.js';
import { parseHashConfig } from '../../../src/cli/readers/hash-config.js';
import { hashConfigBlock } from '../fixtures.js';

// The plain path (firebase-plain.ts) must make exactly the record the general path makes, key order included, or
// leave the user to it. Checked on every combination a seeded generator draws from values that each take one branch
// of either path: spelling, refused values, second login methods, claims, factors, bad times and hashes.

const hashConfig = parseHashConfig(hashConfigBlock);
const base: FirebaseOptions = { hashConfig, includeDisabled: false, providerOverrides: new Map() };
const optionSets: Record<string, FirebaseOptions> = {
  default: base,
  'no hash config': { ...base, hashConfig: undefined },
  'disabled users included': { ...base, includeDisabled: true },
  'provider renamed': { ...base, providerOverrides: new Map([['google.com', 'google-workspace']]) },
  'lazy migration': { ...base, lazySource: 'legacy' },
  'role claims': { ...base, carry: { source: 'firebase', markedAt: 1, mapping: parseMapping({ roleClaims: ['role'] }) } },
};

const canonicalHash = 'O74VmgK+WVrySoEBTH90xCpdamxMzXkQ1QnORcvbLheUYl0CKx3cvkIjGXVhyXUQ/3xe52Amyka0i8jOQF4G7A==';
const google = { providerId: 'google.com', rawId: '1000', email: 'g@gmail.example', displayName: 'G', photoUrl: 'https://p/g.png' };
const pools: Record<string, unknown[]> = {
  localId: [undefined, 'u1', ' u2 ', ''],
  uid: [undefined, undefined, 'uid-3'],
  email: [
    undefined,
    'a@example.com',
    'Mixed@Example.COM',
    ' spaced@example.com ',
    'not an email',
    'nul\u0000@example.com',
    'ü@exämple.com',
  ],
  emailVerified: [undefined, true, false, 'true', 'no', 1],
  passwordHash: [
    undefined,
    undefined,
    canonicalHash,
    canonicalHash.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
    'not base64!',
    '',
  ],
  salt: [undefined, 'vIfFBrTUntHfp/BW', 'vIfFBrTUntHfp_BW', '', '@@'],
  passwordSalt: [undefined, undefined, 'c2FsdA=='],
  createdAt: [undefined, '1546300800000', 1546300800000, '2019-01-01T00:00:00Z', 'yesterday', { $date: '2019-01-01T00:00:00Z' }],
  metadata: [undefined, undefined, { creationTime: '2020-01-01T00:00:00Z' }, 'text'],
  phoneNumber: [undefined, undefined, undefined, undefined, '+14155552671', '+1 415 555 2671', '4155552671', '+999'],
  disabled: [undefined, undefined, false, true, 'true'],
  displayName: [undefined, 'Alice', ' ', 'x\ud800y'],
  photoUrl: [undefined, 'https://p/a.png'],
  customAttributes: [undefined, undefined, undefined, undefined, '', '{"role":"admin"}', 'not json'],
  mfaInfo: [undefined, undefined, undefined, [], [{ phoneInfo: '+14155550000' }], [{ totpInfo: {} }]],
  multiFactor: [undefined, undefined, undefined, { enrolledFactors: [] }, { enrolledFactors: [{ factorId: 'totp' }] }],
  providerUserInfo: [
    undefined,
    [],
    [{ providerId: 'password', rawId: 'a@example.com', email: 'a@example.com' }],
    [google],
    [{ providerId: 'password', rawId: 'a@example.com' }, google],
    [google, { providerId: 'apple.com', rawId: 'a1', email: 'a@privaterelay.example' }],
    [{ providerId: 'google.com', uid: '1001' }],
    [{ providerId: 'google.com', email: 'g@gmail.example' }],
    [{ providerId: 'phone', rawId: '+14155552671' }],
    [null, 'text', { providerId: 7 }],
    [{ providerId: '', rawId: 'x', email: 'x@example.com' }],
    [{ providerId: 'oidc.acme', rawId: ' x ', email: 'X@Example.com' }],
  ],
};

// A small deterministic generator (mulberry32), so that a failure names a user that can be drawn again.
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function drawUser(next: () => number): Record<string, unknown> {
  const user: Record<string, unknown> = {};
  for (const [field, values] of Object.entries(pools)) {
    const value = values[Math.floor(next() * values.length)];
    if (value !== undefined) user[field] = value;
  }
  return user;
}

function general(raw: unknown, index: number, options: FirebaseOptions): unknown {
  try {
    return firebaseRecord(fromJsonUser(raw), index, options);
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

describe('the plain path of the Firebase reader', () => {
  it('makes the same record as the general path, key order included, or leaves the user to it', () => {
    const next = generator(31);
    const taken: Record<string, number> = {};
    const methods: Record<string, number> = {};
    for (let index = 0; index < 20_000; index++) {
      const raw = drawUser(next);
      for (const [name, options] of Object.entries(optionSets)) {
        const plain = plainFirebaseRecord(raw, index, options);
        if (plain === undefined) continue;
        taken[name] = (taken[name] ?? 0) + 1;
        const { recipeId } = plain.user!.loginMethods[0];
        methods[recipeId] = (methods[recipeId] ?? 0) + 1;
        const expected = general(raw, index, options);
        const context = `${name}: ${JSON.stringify(raw)}`;
        expect(plain, context).toStrictEqual(expected);
        expect(JSON.stringify(plain), context).toBe(JSON.stringify(expected));
      }
    }
    // The generator does reach the plain path, for each kind of login method and under each option set it may serve.
    expect(taken.default).toBeGreaterThan(300);
    expect(taken['no hash config']).toBeGreaterThan(300);
    expect(taken['provider renamed']).toBeGreaterThan(300);
    for (const recipeId of ['emailpassword', 'thirdparty', 'passwordless']) expect(methods[recipeId]).toBeGreaterThan(100);
    expect(taken['lazy migration']).toBeUndefined();
    expect(taken['role claims']).toBeUndefined();
  });

  it('serves the users an export mostly holds: a password, one identity provider, a phone number, an email link', () => {
    const common = { localId: 'u1', createdAt: '1546300800000', lastSignedInAt: '1546300805000' };
    const users = [
      {
        ...common,
        email: 'user0@example.com',
        emailVerified: false,
        passwordHash: canonicalHash,
        salt: 'vIfFBrTUntHfp/BW',
        displayName: 'User 0',
        providerUserInfo: [{ providerId: 'password', rawId: 'user0@example.com', email: 'user0@example.com' }],
      },
      { ...common, email: 'g92@gmail.example', emailVerified: true, displayName: 'Google 92', providerUserInfo: [google] },
      { ...common, phoneNumber: '+14152000095', providerUserInfo: [{ providerId: 'phone', rawId: '+14152000095' }] },
      { ...common, email: 'link98@example.com', emailVerified: true, providerUserInfo: [] },
    ];
    for (const [index, raw] of users.entries()) {
      const plain = plainFirebaseRecord(raw, index, base);
      expect(plain, JSON.stringify(raw)).toBeDefined();
      expect(plain).toStrictEqual(general(raw, index, base));
    }
  });
});
