import { execSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLazyMigrationConfig, sourceKinds, type SourceConfig } from '../../src/lazy-migration/config.js';
import { createAdapter } from '../../src/lazy-migration/adapters/index.js';
import { secretHash } from '../../src/lazy-migration/adapters/cognito.js';
import type { AdapterOutcome } from '../../src/lazy-migration/outcome.js';
import { FakeProvider } from './fake-providers.js';
import { sourceEntry } from './sources.js';

const accounts = [
  { login: 'alice@example.com', password: 'correct horse', id: 'old-alice' },
  { login: 'dora@example.com', password: 'pw-dora', id: 'old-dora', state: 'disabled' as const },
  { login: 'mia@example.com', password: 'pw-mia', id: 'old-mia', state: 'mfa' as const },
];

function configFor(kind: (typeof sourceKinds)[number], url: string, extra: Record<string, unknown> = {}): SourceConfig {
  // The cases that are not about timeouts allow the most a source may: a loaded machine must not make them UNAVAILABLE.
  return parseLazyMigrationConfig({ sources: { old: sourceEntry(kind, url, { timeout_ms: 10_000, ...extra }) } }, {}).sources.get('old')!;
}

async function ask(source: SourceConfig, login: string, password: string): Promise<AdapterOutcome> {
  const adapter = createAdapter(source, 'identity-core/test');
  return adapter.verify({ login, password, userId: 'u1', tenantId: 'public' }, AbortSignal.timeout(source.timeoutMs));
}

describe.each(sourceKinds)('%s adapter against a fake provider on loopback', (kind) => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await FakeProvider.start(kind, accounts);
  });
  afterAll(async () => fake.close());

  it('a right password is a match, naming the old id where the provider gives one', async () => {
    fake.mode = 'normal';
    const outcome = await ask(configFor(kind, fake.url), 'alice@example.com', 'correct horse');
    expect(outcome.kind).toBe('MATCH');
    if (kind !== 'webhook' && outcome.kind === 'MATCH') expect(outcome.providerUserId).toBe('old-alice');
  });

  it('a wrong password is a mismatch', async () => {
    expect((await ask(configFor(kind, fake.url), 'alice@example.com', 'wrong')).kind).toBe('MISMATCH');
  });

  it('an unknown user is never a match', async () => {
    expect(['MISMATCH', 'NOT_FOUND']).toContain((await ask(configFor(kind, fake.url), 'nobody@example.com', 'x')).kind);
  });

  it('a throttling provider is rate limited, not a mismatch', async () => {
    fake.mode = 'throttled';
    const outcome =
      kind === 'firebase'
        ? await threeThrottledUsers(configFor(kind, fake.url))
        : await ask(configFor(kind, fake.url), 'alice@example.com', 'correct horse');
    fake.mode = 'normal';
    expect(outcome.kind).toBe('RATE_LIMITED');
  });

  it('refused credentials of ours are a configuration error', async () => {
    fake.mode = 'bad-credentials';
    const outcome = await ask(configFor(kind, fake.url), 'alice@example.com', 'correct horse');
    fake.mode = 'normal';
    expect(outcome.kind).toBe('CONFIG_ERROR');
  });

  it('a provider that is down or answers an unknown shape is unavailable, never a match', async () => {
    fake.mode = 'down';
    expect((await ask(configFor(kind, fake.url), 'alice@example.com', 'correct horse')).kind).toBe('UNAVAILABLE');
    fake.mode = 'odd-answer';
    const odd = await ask(configFor(kind, fake.url), 'alice@example.com', 'correct horse');
    fake.mode = 'normal';
    expect(odd.kind).toBe(kind === 'webhook' ? 'MISMATCH' : 'UNAVAILABLE');
  });

  it('a slow provider times out as unavailable within the configured timeout', async () => {
    fake.latencyMs = 1500;
    const started = Date.now();
    const outcome = await ask(configFor(kind, fake.url, { timeout_ms: 200 }), 'alice@example.com', 'correct horse');
    fake.latencyMs = 0;
    expect(outcome).toEqual({ kind: 'UNAVAILABLE', reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1200);
  });
});

describe('provider specifics', () => {
  it('a disabled account is locked at every provider that says so', async () => {
    for (const kind of ['firebase', 'auth0', 'cognito', 'okta', 'supabase'] as const) {
      const fake = await FakeProvider.start(kind, accounts);
      expect((await ask(configFor(kind, fake.url), 'dora@example.com', 'pw-dora')).kind, kind).toBe('LOCKED');
      await fake.close();
    }
  });

  it.each([
    { kind: 'webhook', factors: ['totp', 'webauthn'], id: undefined },
    { kind: 'firebase', factors: ['otp-phone'], id: 'old-mia' },
    { kind: 'auth0', factors: ['unknown'], id: undefined },
    { kind: 'cognito', factors: ['totp'], id: undefined },
    { kind: 'okta', factors: ['otp-phone', 'totp'], id: 'old-mia' },
    { kind: 'supabase', factors: ['totp'], id: 'old-mia' },
  ] as const)('$kind: a right password with a second factor pending is a match that names the factors', async ({ kind, factors, id }) => {
    const fake = await FakeProvider.start(kind, accounts);
    // What the source answers does not depend on accept_mfa_challenge: the service decides (adopt and mark, or keep pending).
    for (const extra of [{}, { accept_mfa_challenge: false }]) {
      expect(await ask(configFor(kind, fake.url, extra), 'mia@example.com', 'pw-mia')).toEqual({
        kind: 'MATCH',
        providerUserId: id,
        secondFactors: factors,
      });
    }
    await fake.close();
  });

  it('cognito: a temporary password is never adopted, an unconfirmed user must reset', async () => {
    const fake = await FakeProvider.start('cognito', [
      { login: 'temp', password: 'Temp-123', id: 't', state: 'temporary-password' },
      { login: 'unconf', password: 'pw', id: 'u', state: 'unconfirmed' },
    ]);
    expect((await ask(configFor('cognito', fake.url), 'temp', 'Temp-123')).kind).toBe('RESET_REQUIRED');
    expect((await ask(configFor('cognito', fake.url), 'unconf', 'pw')).kind).toBe('RESET_REQUIRED');
    await fake.close();
  });

  it('cognito: SECRET_HASH is Base64(HMAC-SHA256(secret, username + client id)) as the AWS guide computes it', () => {
    // Recomputed with: printf '%s' 'alice3ls6jhd1mqvd5j3m0k6ld2q8ve' | openssl dgst -sha256 -hmac 'topsecret' -binary | base64
    expect(secretHash('topsecret', 'alice', '3ls6jhd1mqvd5j3m0k6ld2q8ve')).toBe(
      execSync("printf '%s' 'alice3ls6jhd1mqvd5j3m0k6ld2q8ve' | openssl dgst -sha256 -hmac 'topsecret' -binary").toString('base64'),
    );
  });

  it('supabase: an unconfirmed email after a right password is a match', async () => {
    const fake = await FakeProvider.start('supabase', [{ login: 'new@example.com', password: 'pw', id: 's1', state: 'unconfirmed' }]);
    expect((await ask(configFor('supabase', fake.url), 'new@example.com', 'pw')).kind).toBe('MATCH');
    await fake.close();
  });

  it('the webhook sends the Kratos fields and a verifiable signature, and the password goes only there', async () => {
    const fake = await FakeProvider.start('webhook', accounts);
    await ask(configFor('webhook', fake.url), 'alice@example.com', 'correct horse');
    const sent = JSON.parse(fake.requests[0].body) as Record<string, unknown>;
    expect(sent).toMatchObject({ identifier: 'alice@example.com', password: 'correct horse', source: 'old', tenantId: 'public' });
    expect(fake.requests[0].headers['x-identitycore-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    await fake.close();
  });
});

async function threeThrottledUsers(source: SourceConfig): Promise<AdapterOutcome> {
  const adapter = createAdapter(source, 'identity-core/test');
  let outcome: AdapterOutcome | undefined;
  for (const login of ['a@example.com', 'b@example.com', 'c@example.com']) {
    outcome = await adapter.verify({ login, password: 'x', userId: 'u', tenantId: 'public' }, AbortSignal.timeout(1000));
  }
  return outcome!;
}
