import fc from 'fast-check';
import type { Method } from './routes.js';

// Data-only descriptions of how to damage a valid request, so fast-check can generate, print and replay them;
// they are applied to a request built from the current seed (see applyMutations).

type Path = number[];
export type BodyMutation =
  | { op: 'delete'; path: Path }
  | { op: 'set'; path: Path; value: unknown }
  | { op: 'add'; path: Path; key: string; value: unknown }
  | { op: 'replace'; value: unknown };

export type RawMutation =
  | { op: 'bytesInString'; path: Path; bytes: readonly number[] }
  | { op: 'truncate'; at: number }
  | { op: 'insert'; at: number; bytes: readonly number[] }
  | { op: 'duplicateKey' }
  | { op: 'text'; text: string };

export type QueryMutation =
  | { op: 'delete'; index: number }
  | { op: 'set'; index: number; value: string }
  | { op: 'add'; key: string; value: string }
  | { op: 'repeat'; index: number; value: string }
  | { op: 'raw'; text: string };

export interface HeaderChoice {
  cdiVersion?: string;
  // Replaces the route's own rid.
  rid?: string;
  // null: no Content-Type header at all; absent: application/json.
  contentType?: string | null;
  apiKey: 'right' | 'missing' | 'wrong' | 'bearer';
}

export interface FuzzCase {
  route: number;
  body: BodyMutation[];
  raw?: RawMutation;
  query: QueryMutation[];
  headers: HeaderChoice;
  prefix?: string;
  method?: Method;
}

const printable = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 20 });

const nasty = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uFEFF',
  '\u00A0x\u00A0',
  '\uD800',
  'x\uDFFFy',
  '😀',
  'ǅ',
  '\u202E',
  '%00',
  '../..',
  "'; DROP TABLE users; --",
  '$2a$04$',
  '$argon2id$v=19$m=1,t=1,p=1$',
  '$f_scrypt$$$m=99$r=99$s=',
  '=',
  '====',
  'AAAA',
  'null',
  'true',
  '[]',
  '{}',
  '-1',
  '1e309',
  '__proto__',
  'constructor',
  'public',
  'PUBLIC',
  '+',
  '+1',
  '+00000000000000000000',
  'bcrypt',
  'ARGON2',
  'idp_scrypt',
  'FIREBASE_SCRYPT',
);

// Contacts a tired engineer or an attacker sends: phone numbers without +, with words or extensions, and emails
// with spaces, invisible characters or letters that read as ASCII (the contact rules must refuse them all).
const contactPieces = [
  '+',
  '1',
  '4',
  '0',
  '0044',
  ' ',
  '(',
  ')',
  '-',
  '.',
  'ext',
  'a',
  'K',
  '\u212A',
  '\uFF41',
  '\u0130',
  'e\u0301',
  '\u00E9',
  'ß',
  '\u03A3',
  '\u200B',
  '\u200D',
  '\u202E',
  '\u2066',
  '\u00AD',
  '\u00A0',
  '\uFF20',
  '\uFB01',
  '@',
  '@@',
  '"',
  '<',
  ',',
  '..',
  'example.com',
  'x',
];
export const contactValue = fc.oneof(
  fc.constantFrom('14155552673', '0044 20 7183 8751', 'call me', '+1 415 555 2671 ext 5'),
  fc.constantFrom('bob smith@example.com', 'not-an-email', '\u212Avictim@uni.com'),
  fc.array(fc.constantFrom(...contactPieces), { minLength: 1, maxLength: 8 }).map((pieces) => pieces.join('')),
  fc
    .tuple(fc.constantFrom('+14155552671', 'ada@example.com'), fc.nat(16), fc.constantFrom(...contactPieces))
    .map(([valid, at, piece]) => valid.slice(0, at) + piece + valid.slice(at)),
);

const hugeString = fc
  .constantFrom(257, 1000, 70_000, 300_000)
  .chain((length) => fc.constantFrom('a', 'é', '😀', '\u0000').map((unit) => unit.repeat(length)));

const deep = fc.tuple(fc.integer({ min: 1, max: 3000 }), fc.boolean()).map(([depth, asArray]) => {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level++) value = asArray ? [value] : { d: value };
  return value;
});

const hugeNumber = fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -(2 ** 63), 2 ** 64, 0.5, -0, 1e-320, 123456789012345680000);

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constant(null), weight: 3 },
  { arbitrary: fc.boolean(), weight: 2 },
  { arbitrary: fc.integer(), weight: 2 },
  { arbitrary: fc.double(), weight: 1 },
  { arbitrary: hugeNumber, weight: 2 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 3 },
  { arbitrary: nasty, weight: 4 },
  { arbitrary: contactValue, weight: 3 },
  { arbitrary: hugeString, weight: 1 },
  { arbitrary: deep, weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 3 },
  { arbitrary: fc.array(fc.string({ maxLength: 10 }), { maxLength: 5 }), weight: 2 },
  // Own "__proto__" and "constructor" keys, as JSON.parse makes them: prototype pollution attempts.
  {
    arbitrary: fc.constant(null).map(() => JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}')),
    weight: 1,
  },
);

const path = fc.array(fc.nat(), { minLength: 1, maxLength: 4 });
const key = fc.oneof(
  printable,
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'email', 'userId', 'status', 'id', 'isVerified', ''),
);

const bodyMutation: fc.Arbitrary<BodyMutation> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('delete' as const), path }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('set' as const), path, value: hostileValue }), weight: 8 },
  { arbitrary: fc.record({ op: fc.constant('add' as const), path, key, value: hostileValue }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('replace' as const), value: hostileValue }), weight: 1 },
);

const invalidUtf8 = fc.oneof(
  fc.constantFrom(
    [0xff],
    [0xfe, 0xff],
    [0xc3],
    [0xc3, 0x28],
    [0xe2, 0x82],
    [0xed, 0xa0, 0x80],
    [0xc0, 0xaf],
    [0xf8, 0x88, 0x80, 0x80, 0x80],
    [0x00],
  ),
  fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 8 }),
);

const rawMutation: fc.Arbitrary<RawMutation> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('bytesInString' as const), path, bytes: invalidUtf8 }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }), weight: 2 },
  {
    arbitrary: fc.record({
      op: fc.constant('insert' as const),
      at: fc.nat(),
      bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 6 }),
    }),
    weight: 2,
  },
  { arbitrary: fc.constant({ op: 'duplicateKey' as const }), weight: 1 },
  {
    arbitrary: fc.record({
      op: fc.constant('text' as const),
      text: fc.constantFrom(
        '',
        ' ',
        'null',
        '[]',
        '[{}]',
        '"x"',
        '1',
        '{',
        '{"a":',
        '{}{}',
        "{'a':1}",
        '{"__proto__":{"x":1}}',
        '\uFEFF{}',
      ),
    }),
    weight: 2,
  },
);

const queryValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  nasty,
  fc.constantFrom('9999999999999999999999', '-5', '0', '501', 'ASC', 'DESC', 'true', 'TRUE', 'false', 'SUPERTOKENS', 'NEW', 'FAILED'),
);
const queryMutation: fc.Arbitrary<QueryMutation> = fc.oneof(
  fc.record({ op: fc.constant('delete' as const), index: fc.nat() }),
  fc.record({ op: fc.constant('set' as const), index: fc.nat(), value: queryValue }),
  fc.record({
    op: fc.constant('add' as const),
    key: fc.oneof(
      printable,
      fc.constantFrom('email', 'phoneNumber', 'deviceId', 'userId', 'limit', 'paginationToken', 'thirdPartyId', 'status', 'dryRun'),
    ),
    value: queryValue,
  }),
  fc.record({ op: fc.constant('repeat' as const), index: fc.nat(), value: queryValue }),
  fc.record({
    op: fc.constant('raw' as const),
    text: fc.constantFrom('%', '%zz', '%ff%fe', '&&&', '=', '==x', 'a[]=1&a[]=2', 'email[x]=y', '%00=%00', '+%2B+'),
  }),
);

// Mostly absent, so most requests reach the handlers instead of failing at the transport checks.
const rarely = <T>(arbitrary: fc.Arbitrary<T>, absentWeight: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: absentWeight }, { arbitrary, weight: 1 });

const header: fc.Arbitrary<HeaderChoice> = fc.record({
  cdiVersion: rarely(
    fc.oneof(
      fc.constantFrom('2.7', '2.21', '3.0', '4.0', '5.0', '5.4', '5.6'),
      fc.constantFrom('5.7', '2.6', '1.0', '5.0.0', 'abc', '2.x', '1..0', '2,7', '234243', '005.004'),
      printable,
    ),
    3,
  ),
  rid: rarely(fc.oneof(fc.constantFrom('passwordless', 'thirdparty', 'emailpassword', 'PASSWORDLESS', 'session', ''), printable), 4),
  contentType: rarely(
    fc.oneof(
      fc.constant(null),
      fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/octet-stream',
        '*/*',
      ),
      printable,
    ),
    4,
  ),
  apiKey: fc.oneof(
    { arbitrary: fc.constant('right' as const), weight: 20 },
    fc.constantFrom('missing' as const, 'wrong' as const, 'bearer' as const),
  ),
});

const prefix = fc.constantFrom(
  '/public',
  '/appid-public',
  '/appid-public/public',
  '/tenant-x',
  '/appid-other',
  '/appid-',
  '/APPID-PUBLIC/PUBLIC',
  '/recipe',
  '/users',
  '//',
);
const method = fc.constantFrom<Method>('GET', 'POST', 'PUT', 'DELETE', 'PATCH');

export function fuzzCase(routeCount: number): fc.Arbitrary<FuzzCase> {
  return fc.record({
    route: fc.nat({ max: routeCount - 1 }),
    body: fc.array(bodyMutation, { maxLength: 3 }),
    raw: rarely(rawMutation, 5),
    query: fc.array(queryMutation, { maxLength: 3 }),
    headers: header,
    prefix: rarely(prefix, 15),
    method: rarely(method, 25),
  });
}
