import { describe, expect, it } from 'vitest';
import { parseSessionBridgeConfig } from '../../src/session-bridge/config.js';
import { loadConfig } from '../../src/config/load.js';

const parse = (sources: Record<string, unknown>, env: Record<string, string> = {}) => parseSessionBridgeConfig({ sources }, env);

describe('session_bridge config', () => {
  it("knows each kind's issuer, key URL, algorithms and old-id claim", () => {
    // Several providers' users in one core: each source's mapped users under its own prefix.
    const config = parse(
      Object.fromEntries(
        Object.entries({
          fb: { kind: 'firebase', project_id: 'acme-prod' },
          a0: { kind: 'auth0', domain: 'acme.eu.auth0.com', audience: 'https://api.acme.example' },
          cg: { kind: 'cognito', region: 'eu-west-1', user_pool_id: 'eu-west-1_Ab12', client_id: 'c1', token_use: 'access' },
          ok: { kind: 'okta', issuer: 'https://acme.okta.com/oauth2/default', audience: 'api://default' },
          org: { kind: 'okta', issuer: 'https://acme.okta.com', audience: '0oa1client' },
          ck: { kind: 'clerk', issuer: 'https://clerk.acme.example/' },
          sb: { kind: 'supabase', project_url: 'https://abc.supabase.co', jwt_secret: 'env:SB_SECRET' },
          id: { kind: 'oidc', issuer: 'https://id.acme.example', audience: 'app', jwks_url: 'https://id.acme.example/certs', claim: 'oid' },
        }).map(([name, source]) => [name, { ...source, external_id_prefix: `${name}:` }]),
      ),
      { SB_SECRET: 'shh' },
    );
    const view = (name: string) => {
      const { issuer, audience, jwksUrl, algorithms, subjectClaims, hmacSecret, timeoutMs, keyTtlMs } = config.sources.get(name)!;
      return { issuer, audience, jwksUrl, algorithms, subjectClaims, hmac: hmacSecret !== undefined, timeoutMs, keyTtlMs };
    };
    const defaults = { hmac: false, timeoutMs: 3000, keyTtlMs: 600_000 };
    expect(view('fb')).toEqual({
      issuer: 'https://securetoken.google.com/acme-prod',
      audience: 'acme-prod',
      jwksUrl: 'https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com',
      algorithms: ['RS256'],
      subjectClaims: ['sub'],
      ...defaults,
    });
    expect(view('a0')).toEqual({
      issuer: 'https://acme.eu.auth0.com/',
      audience: 'https://api.acme.example',
      jwksUrl: 'https://acme.eu.auth0.com/.well-known/jwks.json',
      algorithms: ['RS256', 'PS256'],
      subjectClaims: ['sub'],
      ...defaults,
    });
    expect(view('cg')).toEqual({
      issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Ab12',
      audience: undefined,
      jwksUrl: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Ab12/.well-known/jwks.json',
      algorithms: ['RS256'],
      subjectClaims: ['sub'],
      ...defaults,
    });
    expect(view('ok')).toMatchObject({ jwksUrl: 'https://acme.okta.com/oauth2/default/v1/keys', subjectClaims: ['uid', 'sub'] });
    expect(view('org')).toMatchObject({ jwksUrl: 'https://acme.okta.com/oauth2/v1/keys', issuer: 'https://acme.okta.com' });
    expect(view('ck')).toMatchObject({ issuer: 'https://clerk.acme.example', jwksUrl: 'https://clerk.acme.example/.well-known/jwks.json' });
    expect(view('sb')).toEqual({
      issuer: 'https://abc.supabase.co/auth/v1',
      audience: 'authenticated',
      jwksUrl: 'https://abc.supabase.co/auth/v1/.well-known/jwks.json',
      algorithms: ['RS256', 'ES256'],
      subjectClaims: ['sub'],
      ...defaults,
      hmac: true,
    });
    expect(view('id')).toMatchObject({ subjectClaims: ['oid'], jwksUrl: 'https://id.acme.example/certs' });
  });

  it('lets sources of one issuer, or sources whose prefixes the operator set, share mapped users', () => {
    const config = parse({
      id: { kind: 'auth0', domain: 'acme.eu.auth0.com', external_id_prefix: 'auth0:' },
      api: { kind: 'auth0', domain: 'acme.eu.auth0.com', audience: 'https://api.acme.example', external_id_prefix: 'auth0:' },
      fb: { kind: 'firebase', project_id: 'p', external_id_prefix: 'firebase:' },
      one: { kind: 'clerk', issuer: 'https://clerk.acme.example', external_id_prefix: '' },
      two: { kind: 'okta', issuer: 'https://acme.okta.com', audience: 'a', external_id_prefix: '', lazy_source: 'okta-passwords' },
    });
    const view = (name: string) => {
      const { externalIdPrefix, lazySource } = config.sources.get(name)!;
      return { externalIdPrefix, lazySource };
    };
    expect(['id', 'api', 'fb', 'one', 'two'].map(view)).toEqual([
      { externalIdPrefix: 'auth0:', lazySource: 'id' },
      { externalIdPrefix: 'auth0:', lazySource: 'api' },
      { externalIdPrefix: 'firebase:', lazySource: 'fb' },
      { externalIdPrefix: '', lazySource: 'one' },
      { externalIdPrefix: '', lazySource: 'okta-passwords' },
    ]);
  });

  it('takes a deadline, a key URL on loopback with allow_http, and the block as JSON from SESSION_BRIDGE', () => {
    const config = loadConfig({
      env: {
        SESSION_BRIDGE: JSON.stringify({
          sources: {
            fb: {
              kind: 'firebase',
              project_id: 'env:FB_PROJECT',
              jwks_url: 'http://127.0.0.1:9999/keys',
              allow_http: true,
              deadline: '2027-03-01T00:00:00Z',
            },
          },
        }),
        FB_PROJECT: 'acme-prod',
      },
    });
    expect(config.session_bridge.sources.get('fb')).toMatchObject({
      audience: 'acme-prod',
      jwksUrl: 'http://127.0.0.1:9999/keys',
      deadline: Date.parse('2027-03-01T00:00:00Z'),
    });
  });

  it.each([
    [
      { legacy: { kind: 'saml' } },
      "'session_bridge.sources.legacy.kind' must be one of firebase, auth0, cognito, okta, clerk, supabase, oidc",
    ],
    [{ fb: { kind: 'firebase' } }, "'session_bridge.sources.fb.project_id' is required for kind firebase"],
    [
      { cg: { kind: 'cognito', region: 'r', user_pool_id: 'p', client_id: 'c' } },
      "'session_bridge.sources.cg.token_use' is required for kind cognito",
    ],
    [
      { cg: { kind: 'cognito', region: 'r', user_pool_id: 'p', client_id: 'c', token_use: 'refresh' } },
      "'session_bridge.sources.cg.token_use' must be id or access",
    ],
    [
      { id: { kind: 'oidc', issuer: 'https://id.example', audience: 'a', jwks_url: 'http://id.example/certs', allow_http: true } },
      "'session_bridge.sources.id.jwks_url' must be an https URL (plain http only to loopback, with allow_http: true)",
    ],
    [
      { fb: { kind: 'firebase', project_id: 'p', jwks_url: 'http://127.0.0.1:9999/keys' } },
      "'session_bridge.sources.fb.jwks_url' must be an https URL (plain http only to loopback, with allow_http: true)",
    ],
    [
      { ck: { kind: 'clerk', issuer: 'http://clerk.example' } },
      "'session_bridge.sources.ck.issuer' must be an https URL (plain http only to loopback, with allow_http: true)",
    ],
    [
      { fb: { kind: 'firebase', project_id: 'p', deadline: 'next week' } },
      "'session_bridge.sources.fb.deadline' must be an ISO 8601 date and time",
    ],
    [
      { fb: { kind: 'firebase', project_id: 'env:NOPE' } },
      "'session_bridge.sources.fb.project_id' names the environment variable NOPE, which is not set",
    ],
    [{ fb: { kind: 'firebase', project_id: 'p', api_key: 'x' } }, "'session_bridge.sources.fb.api_key' is not a known key"],
    [
      { fb: { kind: 'firebase', project_id: 'p' }, mobile: { kind: 'auth0', domain: 'acme.eu.auth0.com' } },
      "'session_bridge.sources.mobile.external_id_prefix' must be set: source 'fb' of another issuer would find the same mapped users",
    ],
    [
      { fb: { kind: 'firebase', project_id: 'p', external_id_prefix: '' }, mobile: { kind: 'auth0', domain: 'a.auth0.com' } },
      "'session_bridge.sources.mobile.external_id_prefix' must be set: source 'fb' of another issuer would find the same mapped users",
    ],
    [
      { fb: { kind: 'firebase', project_id: 'p', lazy_source: 'Legacy' } },
      "'session_bridge.sources.fb.lazy_source' must be 1 to 32 characters of a-z, 0-9, _ and -",
    ],
    [
      { FB: { kind: 'firebase', project_id: 'p' } },
      "'session_bridge.sources.FB': a source name must be 1 to 32 characters of a-z, 0-9, _ and -",
    ],
  ])('refuses %j with one line naming the key', (sources, message) => {
    expect(() => parse(sources)).toThrow(message);
    expect(() => loadConfig({ overrides: { session_bridge: { sources } } })).toThrow(message);
  });

  it('refuses SESSION_BRIDGE that is not JSON', () => {
    expect(() => loadConfig({ env: { SESSION_BRIDGE: 'sources: {}' } })).toThrow("'session_bridge' from the environment must be JSON");
  });
});
