import { describe, expect, it } from 'vitest';
import { parseLazyMigrationConfig } from '../../src/lazy-migration/config.js';
import { formatLazyPointer, parseLazyPointer } from '../../src/hashing/lazy-pointer.js';

describe('lazy_migration config', () => {
  it('reads secrets from the environment and fills the defaults', () => {
    const config = parseLazyMigrationConfig(
      { sources: { legacy: { kind: 'webhook', url: 'https://legacy.example/verify', hmac_secret: 'env:HOOK_SECRET' } } },
      { HOOK_SECRET: ' s3cret\n' },
    );
    const source = config.sources.get('legacy')!;
    expect(config.enabled).toBe(true);
    expect(source).toMatchObject({ kind: 'webhook', hmacSecret: 's3cret', timeoutMs: 3000, maxInFlight: 16, ratePerSecond: 20, burst: 40 });
    expect(source.url).toBe('https://legacy.example/verify');
  });

  it.each([
    [
      { sources: { legacy: { kind: 'ldap' } } },
      "'lazy_migration.sources.legacy.kind' must be one of webhook, firebase, auth0, cognito, okta, supabase",
    ],
    [
      { sources: { Legacy: { kind: 'webhook', url: 'https://x' } } },
      "'lazy_migration.sources.Legacy': a source name must be 1 to 32 characters of a-z, 0-9, _ and -",
    ],
    [{ sources: { legacy: { kind: 'webhook' } } }, "'lazy_migration.sources.legacy.url' is required for kind webhook"],
    [
      { sources: { legacy: { kind: 'webhook', url: 'http://legacy.example/verify' } } },
      "'lazy_migration.sources.legacy.url' must be an https URL (plain http only to loopback, or with allow_http: true)",
    ],
    [
      { sources: { legacy: { kind: 'webhook', url: 'https://x', timeout_ms: 50 } } },
      "'lazy_migration.sources.legacy.timeout_ms' must be an integer from 100 to 10000",
    ],
    [
      { sources: { legacy: { kind: 'webhook', url: 'https://x', hmac_secret: 'env:MISSING' } } },
      "'lazy_migration.sources.legacy.hmac_secret' names the environment variable MISSING, which is not set",
    ],
    [
      { sources: { legacy: { kind: 'webhook', url: 'https://x', deadline: 'soon' } } },
      "'lazy_migration.sources.legacy.deadline' must be an ISO 8601 date and time",
    ],
    [
      { sources: { legacy: { kind: 'webhook', url: 'https://x', realm: 'y' } } },
      "'lazy_migration.sources.legacy.realm' is not a known key",
    ],
    [{ sources: { c: { kind: 'cognito', client_id: 'x' } } }, "'lazy_migration.sources.c.region' is required for kind cognito"],
  ])('refuses %j naming the key', (block, message) => {
    expect(() => parseLazyMigrationConfig(block, {})).toThrow(message);
  });

  it('builds each provider endpoint from its documented base', () => {
    const config = parseLazyMigrationConfig(
      {
        sources: {
          f: { kind: 'firebase', api_key: 'k' },
          a: { kind: 'auth0', domain: 'acme.eu.auth0.com', client_id: 'c', realm: 'db' },
          c: { kind: 'cognito', region: 'eu-west-1', client_id: 'c' },
          o: { kind: 'okta', domain: 'acme.okta.com' },
          s: { kind: 'supabase', url: 'https://abc.supabase.co', api_key: 'k' },
        },
      },
      {},
    );
    expect([...config.sources.values()].map((source) => source.url)).toEqual([
      'https://identitytoolkit.googleapis.com/v1/accounts:signInWithPassword',
      'https://acme.eu.auth0.com/oauth/token',
      'https://cognito-idp.eu-west-1.amazonaws.com/',
      'https://acme.okta.com/api/v1/authn',
      'https://abc.supabase.co/auth/v1/token?grant_type=password',
    ]);
  });
});

describe('lazy pointer', () => {
  it('round-trips login and old id, and names a source only', () => {
    const text = formatLazyPointer({ source: 'cognito-prod', legacyLogin: 'Alice_1', legacyUserId: '3f2a-ü' });
    expect(text).toBe(`$lazy$cognito-prod$QWxpY2VfMQ$M2YyYS3DvA`);
    expect(parseLazyPointer(text)).toEqual({ ok: true, value: { source: 'cognito-prod', legacyLogin: 'Alice_1', legacyUserId: '3f2a-ü' } });
    expect(parseLazyPointer('$lazy$legacy')).toEqual({
      ok: true,
      value: { source: 'legacy', legacyLogin: undefined, legacyUserId: undefined },
    });
  });

  it.each([
    ['$lazy$https://evil.example$$', 'source must be 1 to 32 characters of a-z, 0-9, _ and -'],
    ['$lazy$legacy$QWxpY2U=$', 'login must be unpadded base64url'],
    ['$lazy$legacy$QWxpY2V$', 'login must be canonical base64url'],
    ['$lazy$legacy$a$b$c', 'expected $lazy$<source>$<login, base64url>$<user id, base64url>'],
    [`$lazy$legacy$${'A'.repeat(1400)}$`, 'login must be at most 1024 bytes'],
  ])('refuses %s', (text, reason) => {
    expect(parseLazyPointer(text)).toEqual({ ok: false, reason });
  });
});
