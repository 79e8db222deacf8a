import { describe, expect, it } from 'vitest';
import { HASHING_ALGORITHM_NAMES } from '../../../src/hashing/formats.js';
import { call, countRows, snapshot, useTestApp } from '../../helper.js';
import { ARGON2_VECTORS, BCRYPT_VECTORS, PUBLISHED_SCRYPT, PUBLISHED_SCRYPT_HASH, SIGNER_KEY } from '../../hashing/vectors.js';
import {
  IMPORT,
  SIGNER_KEY_MISSING_MESSAGE,
  emailPasswordUser,
  expectRejected,
  importHash,
  insertPasswordlessUser,
  mapUserId,
  signIn,
  signedIn,
  storedHash,
  tenantNotFound,
} from './fixtures.js';

const ACCEPTED = HASHING_ALGORITHM_NAMES.map((name) => name.toLowerCase()).join(', ');
const UNSUPPORTED = `Unsupported password hashing algorithm: use one of ${ACCEPTED} (any case)`;
const PLAIN_REASON = 'this is not a hash format this core knows (a plain-text password, or a bare digest without its prefix?)';
const C_REASON = '$2c$ is not a bcrypt variant this core verifies (bcrypt writes $2a$, $2b$, $2x$ or $2y$)';
const isIn = (id: string) => `the hash is in the ${id} format; set hashingAlgorithm to ${id.toLowerCase()}`;
const BCRYPT = BCRYPT_VECTORS[0];
const ARGON2 = ARGON2_VECTORS[0];
const SCRYPT_PARAMS = PUBLISHED_SCRYPT_HASH.slice(0, PUBLISHED_SCRYPT_HASH.indexOf('$m='));
const argon2With = (params: string) => ARGON2.hash.replace(/m=\d+,t=\d+,p=\d+/, params);
const GENERIC = 'Password hash is in invalid format';
const BCRYPT_MSG = 'Password hash is in invalid BCrypt format';
const ARGON2_MSG = 'Password hash is in invalid Argon2 format';
const SCRYPT_MSG = 'Password hash is in invalid Firebase SCrypt format';

describe('POST /recipe/user/passwordhash/import', () => {
  const t = useTestApp({ idp_password_hashing_signer_key: SIGNER_KEY }, { truncateEach: true });

  it.each([
    { description: 'no fields', body: {}, message: "Field name 'email' is invalid in JSON input" },
    { description: 'email a number, passwordHash missing', body: { email: 1 }, message: "Field name 'email' is invalid in JSON input" },
    { description: 'email null', body: { email: null, passwordHash: BCRYPT.hash }, message: "Field name 'email' is invalid in JSON input" },
    {
      description: 'email an array',
      body: { email: ['a@x.com'], passwordHash: BCRYPT.hash },
      message: "Field name 'email' is invalid in JSON input",
    },
    { description: 'passwordHash missing', body: { email: 'a@x.com' }, message: "Field name 'passwordHash' is invalid in JSON input" },
    {
      description: 'passwordHash null',
      body: { email: 'a@x.com', passwordHash: null },
      message: "Field name 'passwordHash' is invalid in JSON input",
    },
    {
      description: 'passwordHash a number, bad algorithm',
      body: { email: 'a@x.com', passwordHash: 5, hashingAlgorithm: 7 },
      message: "Field name 'passwordHash' is invalid in JSON input",
    },
    {
      description: 'hashingAlgorithm null',
      body: { email: 'a@x.com', passwordHash: BCRYPT.hash, hashingAlgorithm: null },
      message: "Field name 'hashingAlgorithm' is invalid in JSON input",
    },
    {
      description: 'hashingAlgorithm a boolean',
      body: { email: 'a@x.com', passwordHash: BCRYPT.hash, hashingAlgorithm: true },
      message: "Field name 'hashingAlgorithm' is invalid in JSON input",
    },
    { description: 'empty hash', body: { email: 'a@x.com', passwordHash: '' }, message: 'Password hash cannot be an empty string' },
    {
      description: 'blank hash wins over a bad algorithm',
      body: { email: 'a@x.com', passwordHash: ' \t\n', hashingAlgorithm: 'md5' },
      message: 'Password hash cannot be an empty string',
    },
    {
      description: 'empty algorithm',
      body: { email: 'a@x.com', passwordHash: BCRYPT.hash, hashingAlgorithm: '' },
      message: 'Hashing Algorithm cannot be an empty string',
    },
    {
      description: 'blank algorithm',
      body: { email: 'a@x.com', passwordHash: BCRYPT.hash, hashingAlgorithm: '  ' },
      message: 'Hashing Algorithm cannot be an empty string',
    },
    {
      description: 'unsupported algorithm',
      body: { email: 'a@x.com', passwordHash: BCRYPT.hash, hashingAlgorithm: 'md5' },
      message: UNSUPPORTED,
    },
    {
      description: 'scrypt names standard scrypt, not the platform variant',
      body: { email: 'a@x.com', passwordHash: PUBLISHED_SCRYPT_HASH, hashingAlgorithm: 'scrypt' },
      message: 'Password hash is in invalid SCrypt format: the hash is in the IDP_SCRYPT format; set hashingAlgorithm to idp_scrypt',
    },
    { description: 'unknown format', body: { email: 'a@x.com', passwordHash: 'plaintext' }, message: `${GENERIC}: ${PLAIN_REASON}` },
    {
      description: '$2c$ prefix',
      body: { email: 'a@x.com', passwordHash: `$2c${BCRYPT.hash.slice(3)}` },
      message: `${GENERIC}: ${C_REASON}`,
    },
    {
      description: 'truncated bcrypt, detected',
      body: { email: 'a@x.com', passwordHash: BCRYPT.hash.slice(0, 50) },
      message: `${GENERIC}: salt and hash must be exactly 53 characters, got 43`,
    },
    {
      description: 'truncated bcrypt, BCRYPT',
      body: { email: 'a@x.com', passwordHash: BCRYPT.hash.slice(0, 50), hashingAlgorithm: 'BCRYPT' },
      message: `${BCRYPT_MSG}: salt and hash must be exactly 53 characters, got 43`,
    },
    {
      description: 'bcrypt cost 03',
      body: { email: 'a@x.com', passwordHash: `$2a$03${BCRYPT.hash.slice(6)}`, hashingAlgorithm: 'bcrypt' },
      message: `${BCRYPT_MSG}: cost must be between 04 and 31`,
    },
    {
      description: 'argon2 hash named BCRYPT',
      body: { email: 'a@x.com', passwordHash: ARGON2.hash, hashingAlgorithm: 'BCRYPT' },
      message: `${BCRYPT_MSG}: ${isIn('ARGON2')}`,
    },
    {
      description: 'bcrypt hash named ARGON2',
      body: { email: 'a@x.com', passwordHash: BCRYPT.hash, hashingAlgorithm: 'ARGON2' },
      message: `${ARGON2_MSG}: ${isIn('BCRYPT')}`,
    },
    {
      description: 'argon2 without its hash',
      body: { email: 'a@x.com', passwordHash: ARGON2.hash.slice(0, ARGON2.hash.lastIndexOf('$')), hashingAlgorithm: 'argon2' },
      message: `${ARGON2_MSG}: expected $<type>$v=<version>$m=<memory>,t=<iterations>,p=<parallelism>$<salt>$<hash>`,
    },
    {
      description: 'argon2 m over the bound, detected',
      body: { email: 'a@x.com', passwordHash: argon2With('m=4194305,t=1,p=1') },
      message: `${GENERIC}: memory must be at most 4194304 KiB`,
    },
    {
      description: 'argon2 m over the bound, ARGON2',
      body: { email: 'a@x.com', passwordHash: argon2With('m=4194305,t=1,p=1'), hashingAlgorithm: 'ARGON2' },
      message: `${ARGON2_MSG}: memory must be at most 4194304 KiB`,
    },
    {
      description: 'bcrypt hash named IDP_SCRYPT',
      body: { email: 'a@x.com', passwordHash: BCRYPT.hash, hashingAlgorithm: 'IDP_SCRYPT' },
      message: `${SCRYPT_MSG}: ${isIn('BCRYPT')}`,
    },
    {
      description: 'bcrypt hash named firebase_scrypt',
      body: { email: 'a@x.com', passwordHash: BCRYPT.hash, hashingAlgorithm: 'firebase_scrypt' },
      message: `${SCRYPT_MSG}: ${isIn('BCRYPT')}`,
    },
    {
      description: 'scrypt m=21, detected',
      body: { email: 'a@x.com', passwordHash: `${SCRYPT_PARAMS}$m=21$r=1$s=Bw==` },
      message: `${GENERIC}: mem_cost must be between 1 and 20`,
    },
    {
      description: 'scrypt m=21, IDP_SCRYPT',
      body: { email: 'a@x.com', passwordHash: `${SCRYPT_PARAMS}$m=21$r=1$s=Bw==`, hashingAlgorithm: 'IDP_SCRYPT' },
      message: `${SCRYPT_MSG}: mem_cost must be between 1 and 20`,
    },
    {
      description: 'scrypt hash not base64',
      body: { email: 'a@x.com', passwordHash: `$f_scrypt$ab!d$${PUBLISHED_SCRYPT.salt}$m=14$r=8$s=Bw==`, hashingAlgorithm: 'IDP_SCRYPT' },
      message: `${SCRYPT_MSG}: password hash is not valid base64`,
    },
  ])('400 for $description, writing nothing', async ({ body, message }) => {
    await expectRejected(t.db, () => call(t.app, 'POST', IMPORT, { body }), 400, message);
  });

  it.each([
    { description: 'a JSON array', payload: '[]' },
    { description: 'no body', payload: undefined },
  ])('400 Invalid Json Input for $description', async ({ payload }) => {
    await expectRejected(t.db, () => call(t.app, 'POST', IMPORT, { body: payload }), 400, 'Invalid Json Input');
  });

  it('checks the tenant after the input checks and before the format check (§6.1 order)', async () => {
    const onTenant = (body: object) => () => call(t.app, 'POST', `/tenant1${IMPORT}`, { body });
    await expectRejected(t.db, onTenant({ email: 1 }), 400, "Field name 'email' is invalid in JSON input");
    await expectRejected(t.db, onTenant({ email: 'a@x.com', passwordHash: '' }), 400, 'Password hash cannot be an empty string');
    await expectRejected(
      t.db,
      onTenant({ email: 'a@x.com', passwordHash: 'h', hashingAlgorithm: '' }),
      400,
      'Hashing Algorithm cannot be an empty string',
    );
    await expectRejected(t.db, onTenant({ email: 'a@x.com', passwordHash: 'h', hashingAlgorithm: 'md5' }), 400, UNSUPPORTED);
    await expectRejected(t.db, onTenant({ email: 'a@x.com', passwordHash: 'plaintext' }), 400, tenantNotFound('public', 'tenant1'));
    await expectRejected(t.db, onTenant({ email: 'a@x.com', passwordHash: BCRYPT.hash }), 400, tenantNotFound('public', 'tenant1'));
    const otherApp = () => call(t.app, 'POST', `/appid-other${IMPORT}`, { body: { email: 'a@x.com', passwordHash: BCRYPT.hash } });
    await expectRejected(t.db, otherApp, 400, tenantNotFound('other', 'public'));
  });

  it('creates a user with the trimmed hash stored verbatim and the email normalised, unverified', async () => {
    const reply = await importHash(t.app, '  Alice@Example.COM\t', `\n ${PUBLISHED_SCRYPT_HASH} `, ' idp_scrypt ');
    expect(reply.statusCode).toBe(200);
    const id = reply.json.user.id;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(reply.json).toEqual({
      status: 'OK',
      user: emailPasswordUser({ id, email: 'alice@example.com', timeJoined: t.clock.nowMs }),
      didUserAlreadyExist: false,
    });
    const { rows } = await t.db.pool.query('SELECT * FROM users');
    expect(rows).toEqual([
      {
        user_id: id,
        tenant_id: 'public',
        recipe_id: 'emailpassword',
        time_joined: t.clock.nowMs,
        email: 'alice@example.com',
        phone_number: null,
        third_party_id: null,
        third_party_user_id: null,
        password_hash: PUBLISHED_SCRYPT_HASH,
      },
    ]);
    expect(await countRows(t.db, 'email_verifications')).toBe(0);
  });

  it('replaces the hash of an existing user, keeping id, timeJoined and verification', async () => {
    const old = BCRYPT_VECTORS[2];
    expect(old.password).not.toBe(ARGON2.password);
    const first = await importHash(t.app, 'bob@example.com', old.hash);
    const { id } = first.json.user;
    const joined = t.clock.nowMs;
    await t.db.pool.query('INSERT INTO email_verifications (user_id, email) VALUES ($1, $2)', [id, 'bob@example.com']);
    t.clock.advance(60_000);

    const second = await importHash(t.app, ' BOB@example.com', ARGON2.hash, 'Argon2');
    expect(second.statusCode).toBe(200);
    expect(second.json).toEqual({
      status: 'OK',
      user: emailPasswordUser({ id, email: 'bob@example.com', timeJoined: joined, verified: true }),
      didUserAlreadyExist: true,
    });
    expect(await countRows(t.db, 'users')).toBe(1);
    expect(await storedHash(t.db, 'bob@example.com')).toBe(ARGON2.hash);
    expect((await signIn(t.app, 'bob@example.com', old.password)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect((await signIn(t.app, 'bob@example.com', ARGON2.password)).json).toEqual(
      signedIn({ id, email: 'bob@example.com', timeJoined: joined, verified: true }),
    );
  });

  it('keeps users of other recipes with the same email apart', async () => {
    await insertPasswordlessUser(t.db, 'passwordless-user', 'carol@example.com', 1);
    const reply = await importHash(t.app, 'carol@example.com', BCRYPT.hash);
    expect(reply.json.didUserAlreadyExist).toBe(false);
    expect(reply.json.user.id).not.toBe('passwordless-user');
    expect(await countRows(t.db, 'users')).toBe(2);
  });

  it('answers with the external id of a mapped user', async () => {
    const { id } = (await importHash(t.app, 'dave@example.com', BCRYPT.hash)).json.user;
    await mapUserId(t.db, id, 'legacy-42');
    const reply = await importHash(t.app, 'dave@example.com', BCRYPT_VECTORS[1].hash);
    expect(reply.json).toEqual({
      status: 'OK',
      user: emailPasswordUser({ id: 'legacy-42', email: 'dave@example.com', timeJoined: t.clock.nowMs }),
      didUserAlreadyExist: true,
    });
  });

  it.each(['2.21', '3.0', '4.0', '5.2'])('answers the user shape of cdi-version %s', async (version) => {
    const reply = await call(t.app, 'POST', IMPORT, {
      body: { email: 'erin@example.com', passwordHash: BCRYPT.hash },
      headers: { 'cdi-version': version },
    });
    expect(reply.json).toEqual({
      status: 'OK',
      user: emailPasswordUser({ id: reply.json.user.id, email: 'erin@example.com', timeJoined: t.clock.nowMs }, version),
      didUserAlreadyExist: false,
    });
  });

  it('serialises 20 concurrent imports of one email into one user, never a 500', async () => {
    const hashes = Array.from({ length: 20 }, (_, i) => BCRYPT_VECTORS[i % BCRYPT_VECTORS.length].hash);
    const replies = await Promise.all(hashes.map((hash, i) => importHash(t.app, i % 2 ? 'race@example.com' : ' RACE@example.com', hash)));
    expect(replies.map((reply) => reply.statusCode)).toEqual(hashes.map(() => 200));
    expect(replies.filter((reply) => reply.json.didUserAlreadyExist === false)).toHaveLength(1);
    expect(new Set(replies.map((reply) => reply.json.user.id)).size).toBe(1);
    expect(await countRows(t.db, 'users')).toBe(1);
    expect(hashes).toContain(await storedHash(t.db, 'race@example.com'));
  });
});

describe('POST /recipe/user/passwordhash/import without a signer key', () => {
  const t = useTestApp();

  it.each([
    { description: 'detected scrypt-variant hash', body: { email: 'a@x.com', passwordHash: PUBLISHED_SCRYPT_HASH } },
    {
      description: 'detected scrypt-variant hash out of bounds',
      body: { email: 'a@x.com', passwordHash: `${SCRYPT_PARAMS}$m=21$r=1$s=Bw==` },
    },
    { description: 'IDP_SCRYPT', body: { email: 'a@x.com', passwordHash: PUBLISHED_SCRYPT_HASH, hashingAlgorithm: 'IDP_SCRYPT' } },
    {
      description: 'FIREBASE_SCRYPT, checked before the hash',
      body: { email: 'a@x.com', passwordHash: 'garbage', hashingAlgorithm: 'firebase_scrypt' },
    },
  ])('500 naming the key for a $description, storing nothing', async ({ body }) => {
    await expectRejected(t.db, () => call(t.app, 'POST', IMPORT, { body }), 500, SIGNER_KEY_MISSING_MESSAGE);
  });

  it('still checks the tenant before the key, and imports bcrypt and argon2 hashes', async () => {
    const onTenant = () => call(t.app, 'POST', `/tenant1${IMPORT}`, { body: { email: 'a@x.com', passwordHash: PUBLISHED_SCRYPT_HASH } });
    await expectRejected(t.db, onTenant, 400, tenantNotFound('public', 'tenant1'));
    const notScryptShape = () => importHash(t.app, 'a@x.com', '$f_scrypt$garbage');
    await expectRejected(
      t.db,
      notScryptShape,
      400,
      `${GENERIC}: expected $f_scrypt$<hash>$<salt>$m=<mem_cost>$r=<rounds>$s=<separator>[$k=<key name>]`,
    );
    expect((await importHash(t.app, 'b@x.com', BCRYPT.hash)).statusCode).toBe(200);
    expect((await importHash(t.app, 'c@x.com', ARGON2.hash)).statusCode).toBe(200);
    const before = await snapshot(t.db);
    expect((await importHash(t.app, 'b@x.com', PUBLISHED_SCRYPT_HASH)).statusCode).toBe(500);
    expect(await snapshot(t.db)).toEqual(before);
  });
});
