import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, truncateAll, useTestApp, type TestDatabase } from '../helper.js';
import { formatLazyPointer, parseLazyPointer, pinLegacyLogin } from '../../src/hashing/lazy-pointer.js';
import { FakeProvider } from './fake-providers.js';
import { sourceEntry } from './sources.js';

// A pending user imported without an explicit old login is asked about at the old provider under the email imported
// with them, whatever their email is by then; the other old account that owns their new address never lends its
// password.

const alice = { login: 'alice@old.example', password: 'alice the real one', id: 'old-alice' };
const other = { login: 'alice@new.example', password: 'somebody else entirely', id: 'old-other' };

async function storedHash(db: TestDatabase, userId: string): Promise<string> {
  return (await db.pool.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE user_id = $1', [userId])).rows[0]
    .password_hash;
}

describe('a pending user whose email changed', () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await FakeProvider.start('webhook', [alice, other]);
  });
  const t = useTestApp(() => ({ lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url) } } }));
  afterEach(async () => {
    fake.requests.length = 0;
    await truncateAll(t.db);
  });
  afterAll(() => fake.close());

  const signIn = (email: string, password: string) => call(t.app, 'POST', '/recipe/signin', { body: { email, password } });
  const asked = () => fake.requests.map((request) => JSON.parse(request.body).identifier as string);

  async function changeEmail(userId: string) {
    const reply = await call(t.app, 'PUT', '/recipe/user', { body: { recipeUserId: userId, email: other.login } });
    expect(reply.json).toEqual({ status: 'OK' });
  }

  it.each([
    {
      how: 'POST /recipe/user/passwordhash/import',
      importUser: async () => {
        const reply = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
          body: { email: alice.login, passwordHash: formatLazyPointer({ source: 'legacy' }), hashingAlgorithm: 'lazy' },
        });
        return reply.json.user.id as string;
      },
    },
    {
      how: 'POST /bulk-import/import',
      importUser: async () => {
        const method = { recipeId: 'emailpassword', email: alice.login, passwordHash: formatLazyPointer({ source: 'legacy' }) };
        const reply = await call(t.app, 'POST', '/bulk-import/import', {
          body: { loginMethods: [{ ...method, hashingAlgorithm: 'lazy' }] },
        });
        return reply.json.user.id as string;
      },
    },
  ])('imported through $how: the new address’s other owner is never adopted, the real user still is', async ({ importUser }) => {
    const userId = await importUser();
    const pointer = await storedHash(t.db, userId);
    expect(parseLazyPointer(pointer)).toEqual({ ok: true, value: { source: 'legacy', legacyLogin: alice.login } });
    await changeEmail(userId);

    expect((await signIn(other.login, other.password)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(await storedHash(t.db, userId)).toBe(pointer);
    const adopted = await signIn(other.login, alice.password);
    expect(adopted.json).toMatchObject({ status: 'OK', user: { id: userId, emails: [other.login] } });
    expect(await storedHash(t.db, userId)).toMatch(/^\$2[aby]\$/);
    expect(asked()).toEqual([alice.login, alice.login]);
  });

  it('an explicit old login in the pointer is kept as it was exported', async () => {
    const pointer = formatLazyPointer({ source: 'legacy', legacyLogin: 'Alice_1', legacyUserId: 'old-alice' });
    expect(pinLegacyLogin(pointer, alice.login)).toBe(pointer);
    const reply = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
      body: { email: alice.login, passwordHash: pointer, hashingAlgorithm: 'lazy' },
    });
    expect(await storedHash(t.db, reply.json.user.id)).toBe(pointer);
  });

  it('pointers stored before this rule get the email they have when the migration runs', async () => {
    const emails = ['bob@example.com', `${'ü'.repeat(40)}@example.com`];
    for (const [n, email] of emails.entries()) {
      await t.db.pool.query(
        `INSERT INTO users (user_id, recipe_id, tenant_id, time_joined, email, password_hash) VALUES ($1, 'emailpassword', 'public', 1, $2, $3)`,
        [`u${n}`, email, n === 0 ? '$lazy$legacy$$b2xkLWJvYg' : '$lazy$legacy'],
      );
    }
    await t.db.pool.query(fs.readFileSync('migrations/0019_lazy_pointer_login_fixed_at_import.sql', 'utf8'));
    expect(await storedHash(t.db, 'u0')).toBe(formatLazyPointer({ source: 'legacy', legacyLogin: emails[0], legacyUserId: 'old-bob' }));
    expect(await storedHash(t.db, 'u1')).toBe(formatLazyPointer({ source: 'legacy', legacyLogin: emails[1] }));
  });

  it('the webhook’s old user id, when it names one, must be the pointer’s', async () => {
    fake.webhookSendsUserId = true;
    try {
      for (const [legacyUserId, expected] of [
        ['old-someone-else', 'WRONG_CREDENTIALS_ERROR'],
        [alice.id, 'OK'],
      ]) {
        await truncateAll(t.db);
        const pointer = formatLazyPointer({ source: 'legacy', legacyLogin: alice.login, legacyUserId });
        const reply = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
          body: { email: alice.login, passwordHash: pointer, hashingAlgorithm: 'lazy' },
        });
        expect((await signIn(alice.login, alice.password)).json.status).toBe(expected);
        expect(await storedHash(t.db, reply.json.user.id)).toMatch(expected === 'OK' ? /^\$2[aby]\$/ : /^\$lazy\$/);
      }
    } finally {
      fake.webhookSendsUserId = false;
    }
  });
});

describe('a provider success that does not name the old user', () => {
  it.each(['firebase', 'auth0', 'cognito', 'okta', 'supabase'] as const)('%s: is never adopted (503, pointer kept)', async (kind) => {
    const fake = await FakeProvider.start(kind, [alice]);
    fake.omitUserId = true;
    const t = await createTestApp({ lazy_migration: { sources: { legacy: sourceEntry(kind, fake.url) } } });
    try {
      const pointer = formatLazyPointer({ source: 'legacy', legacyLogin: alice.login, legacyUserId: alice.id });
      const imported = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
        body: { email: alice.login, passwordHash: pointer, hashingAlgorithm: 'lazy' },
      });
      const reply = await call(t.app, 'POST', '/recipe/signin', { body: { email: alice.login, password: alice.password } });
      expect(reply.statusCode).toBe(503);
      expect(await storedHash(t.db, imported.json.user.id)).toBe(pointer);
      fake.omitUserId = false;
      expect((await call(t.app, 'POST', '/recipe/signin', { body: { email: alice.login, password: alice.password } })).json.status).toBe(
        'OK',
      );
    } finally {
      await t.close();
      await fake.close();
    }
  });
});
