import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helper.js';
import { formatLazyPointer } from '../../src/hashing/lazy-pointer.js';
import { FakeProvider } from './fake-providers.js';
import { sourceEntry } from './sources.js';
import type { SourceKind } from '../../src/lazy-migration/config.js';

// A pending user whose old provider confirms the password but asks for a second factor is never turned into a
// silent password-only account: adoption marks them for re-enrolment in their metadata (docs/mfa-re-enrolment.md),
// or, with accept_mfa_challenge: false, they stay pending.

const mia = { login: 'mia@example.com', password: 'pw-mia', id: 'old-mia', state: 'mfa' as const };
const plain = { login: 'pat@example.com', password: 'pw-pat', id: 'old-pat' };

async function importPending(t: TestApp, email: string, source: string, externalUserId: string) {
  const pointer = formatLazyPointer({ source, legacyLogin: email });
  const user = {
    externalUserId,
    userMetadata: { plan: 'pro', mfaReEnrolment: 'stale' },
    loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: pointer, hashingAlgorithm: 'lazy' }],
  };
  const reply = await call(t.app, 'POST', '/bulk-import/import', { body: user });
  expect(reply.json?.status, reply.body).toBe('OK');
  return (await t.db.pool.query<{ user_id: string }>('SELECT user_id FROM users WHERE email = $1', [email])).rows[0].user_id;
}

// The app reads metadata under the external id once the metadata routes key it so; until then under the user id.
async function metadataOf(t: TestApp, ids: string[]) {
  const { rows } = await t.db.pool.query<{ metadata: Record<string, unknown> }>(
    'SELECT metadata FROM user_metadata WHERE user_id = ANY($1::text[])',
    [ids],
  );
  expect(rows.length).toBeLessThanOrEqual(1);
  return rows[0]?.metadata;
}

describe('a second factor pending at the old provider', () => {
  const kinds: SourceKind[] = ['webhook', 'firebase', 'auth0', 'cognito', 'okta', 'supabase'];
  const fakes = new Map<SourceKind, FakeProvider>();
  let adopting: TestApp;
  let keeping: TestApp;
  beforeAll(async () => {
    for (const kind of kinds) fakes.set(kind, await FakeProvider.start(kind, [mia, plain]));
    const sources = (extra: Record<string, unknown>) =>
      Object.fromEntries(kinds.map((kind) => [kind, sourceEntry(kind, fakes.get(kind)!.url, extra)]));
    adopting = await createTestApp({ lazy_migration: { sources: sources({}) } });
    keeping = await createTestApp({ lazy_migration: { sources: sources({ accept_mfa_challenge: false }) } });
  });
  afterAll(async () => {
    await adopting.close();
    await keeping.close();
    for (const fake of fakes.values()) await fake.close();
  });

  const expectedFactors: Record<SourceKind, string[]> = {
    webhook: ['totp', 'webauthn'],
    firebase: ['otp-phone'],
    auth0: ['unknown'],
    cognito: ['totp'],
    okta: ['otp-phone', 'totp'],
    supabase: ['totp'],
  };

  it.each(kinds)('%s: the password is adopted and the user is marked for re-enrolment, other metadata kept', async (kind) => {
    const t = adopting;
    const email = `mia-${kind}@example.com`;
    fakes.get(kind)!.accounts.set(email, { ...mia, login: email });
    const userId = await importPending(t, email, kind, `ext-mia-${kind}`);
    const before = t.clock.now();
    const reply = await call(t.app, 'POST', '/recipe/signin', { body: { email, password: mia.password } });
    expect(reply.json).toMatchObject({ status: 'OK', user: { id: `ext-mia-${kind}` } });
    const stored = await t.db.pool.query('SELECT password_hash FROM users WHERE user_id = $1', [userId]);
    expect(stored.rows[0].password_hash).toMatch(/^\$2[aby]\$/);
    expect(await metadataOf(t, [userId, `ext-mia-${kind}`])).toEqual({
      plan: 'pro',
      mfaReEnrolment: { required: true, factors: expectedFactors[kind], source: kind, markedAt: before },
    });
  });

  it('a user without a second factor at the old provider is adopted without a mark', async () => {
    const t = adopting;
    const email = 'pat-webhook@example.com';
    fakes.get('webhook')!.accounts.set(email, { ...plain, login: email });
    const userId = await importPending(t, email, 'webhook', 'ext-pat');
    expect((await call(t.app, 'POST', '/recipe/signin', { body: { email, password: plain.password } })).json.status).toBe('OK');
    expect(await metadataOf(t, [userId, 'ext-pat'])).toEqual({ plan: 'pro', mfaReEnrolment: 'stale' });
  });

  it('with accept_mfa_challenge: false the user stays pending, unmarked, and the answer is counted as such', async () => {
    const t = keeping;
    const email = 'mia-kept@example.com';
    fakes.get('cognito')!.accounts.set(email, { ...mia, login: email });
    const userId = await importPending(t, email, 'cognito', 'ext-mia-kept');
    const reply = await call(t.app, 'POST', '/recipe/signin', { body: { email, password: mia.password } });
    expect(reply.json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    const stored = await t.db.pool.query('SELECT password_hash FROM users WHERE user_id = $1', [userId]);
    expect(stored.rows[0].password_hash).toMatch(/^\$lazy\$cognito\$/);
    expect(await metadataOf(t, [userId, 'ext-mia-kept'])).toEqual({ plan: 'pro', mfaReEnrolment: 'stale' });
    const status = await call(t.app, 'GET', '/lazy-migration/status');
    const cognito = status.json.sources.find((source: { name: string }) => source.name === 'cognito');
    expect(cognito.outcomes).toEqual({ mfa_kept_pending: 1 });
    expect(cognito.pending).toBe(1);
  });
});
