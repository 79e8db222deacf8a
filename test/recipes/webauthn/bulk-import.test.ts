import { describe, expect, it } from 'vitest';
import { call, countRows, snapshot, truncateAll, useTestApp } from '../../helper.js';
import { SoftAuthenticator } from './authenticator.js';
import { cdi, origin, rpId, signInOptions } from './ceremony.js';

// Passkeys carried from another provider by bulk import (contract-webauthn W-4): the same private key signs in after.
function passkeyOf(authenticator: SoftAuthenticator, extra: Record<string, unknown> = {}) {
  return { credentialId: authenticator.id, publicKey: authenticator.coseKey().toString('base64'), rpId, ...extra };
}

function webauthnUser(externalUserId: string, email: string, credentials: unknown[]) {
  return {
    externalUserId,
    loginMethods: [{ recipeId: 'webauthn', email, isVerified: true, timeJoinedInMSSinceEpoch: 1500000000000, credentials }],
  };
}

describe('bulk import of webauthn login methods', () => {
  const t = useTestApp({ webauthn_rp_ids: 'example.com' });

  async function signInWith(authenticator: SoftAuthenticator, counter?: number) {
    const options = (await signInOptions(t.app)).json;
    return call(t.app, 'POST', '/public/recipe/webauthn/signin', {
      body: {
        webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
        credential: authenticator.assert(options.challenge, origin, rpId, counter),
      },
      headers: cdi('5.4'),
    });
  }

  it('imports now a passkey-only user whose ES256 and RS256 passkeys then sign in under the old id', async () => {
    await truncateAll(t.db);
    const es = new SoftAuthenticator();
    const rs = new SoftAuthenticator({ alg: 'RS256' });
    rs.userHandle = Buffer.from('kc-user-1').toString('base64url');
    const users = [
      webauthnUser('old-1', 'Alice@Example.com', [
        passkeyOf(es, { counter: 7, transports: ['internal', 'hybrid'], aaguid: 'ADCE0002-35BC-C60A-648B-0B25F1F05503' }),
        passkeyOf(rs, { userHandle: rs.userHandle, createdAt: 1600000000000 }),
      ]),
    ];
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users }, query: { importNow: 'true' } });
    expect([reply.statusCode, reply.json.status, reply.json.users[0].userId]).toEqual([200, 'OK', 'old-1']);
    const stored = await t.db.pool.query(
      'SELECT rp_id, credential_id, counter::int, transports, aaguid::text, user_handle, created_at::float8 FROM webauthn_credentials ORDER BY created_at',
    );
    expect(stored.rows).toEqual([
      {
        rp_id: rpId,
        credential_id: es.id,
        counter: 7,
        transports: ['internal', 'hybrid'],
        aaguid: 'adce0002-35bc-c60a-648b-0b25f1f05503',
        user_handle: null,
        created_at: 1500000000000,
      },
      {
        rp_id: rpId,
        credential_id: rs.id,
        counter: 0,
        transports: [],
        aaguid: null,
        user_handle: rs.userHandle,
        created_at: 1600000000000,
      },
    ]);

    es.counter = 7;
    const signedIn = await signInWith(es);
    expect(signedIn.json.status).toBe('OK');
    expect(signedIn.json.recipeUserId).toBe('old-1');
    expect(signedIn.json.user).toMatchObject({ id: 'old-1', emails: ['alice@example.com'], webauthn: { credentialIds: [es.id, rs.id] } });
    expect(signedIn.json.user.loginMethods[0]).toMatchObject({ recipeId: 'webauthn', verified: true, recipeUserId: 'old-1' });
    expect((await signInWith(rs)).json.status).toBe('OK');

    // A browser presenting another user handle for the imported credential is refused.
    rs.userHandle = Buffer.from('someone-else').toString('base64url');
    expect((await signInWith(rs)).json).toEqual({
      status: 'INVALID_CREDENTIALS_ERROR',
      reason: 'userHandle does not match the credential',
    });
  });

  it('queues a passkey user, imports it with the worker, and a dry run stores nothing', async () => {
    await truncateAll(t.db);
    const key = new SoftAuthenticator();
    const users = [webauthnUser('old-2', 'bob@example.com', [passkeyOf(key)])];
    expect((await call(t.app, 'POST', '/bulk-import/users', { body: { users }, query: { dryRun: 'true' } })).json).toEqual({
      status: 'OK',
    });
    expect(await countRows(t.db, 'users')).toBe(0);
    expect((await call(t.app, 'POST', '/bulk-import/users', { body: { users } })).json.users[0].userId).toBe('old-2');
    await t.app.services.bulkImportWorker.processUntilEmpty();
    expect((await signInWith(key)).json.recipeUserId).toBe('old-2');
  });

  it('imports one user through /bulk-import/import, and refuses a credential another user holds, naming that user', async () => {
    await truncateAll(t.db);
    const key = new SoftAuthenticator();
    const first = await call(t.app, 'POST', '/bulk-import/import', { body: webauthnUser('old-3', 'carol@example.com', [passkeyOf(key)]) });
    expect([first.statusCode, first.json.status]).toEqual([200, 'OK']);
    const before = await snapshot(t.db);
    const second = await call(t.app, 'POST', '/bulk-import/import', { body: webauthnUser('old-4', 'dave@example.com', [passkeyOf(key)]) });
    expect([second.statusCode, second.json]).toEqual([
      400,
      { errors: [`EW02: The passkey ${key.id} of RP ID ${rpId} already belongs to user old-3.`] },
    ]);
    const sameEmail = await call(t.app, 'POST', '/bulk-import/import', {
      body: webauthnUser('old-5', 'carol@example.com', [passkeyOf(new SoftAuthenticator())]),
    });
    expect(sameEmail.json).toEqual({ errors: ['EW01: A user with email carol@example.com already exists in webauthn loginMethod.'] });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it.each([
    ['no credentials', [], 'credentials must be a non-empty array of object for a webauthn recipe.'],
    [
      'a credential id too long',
      [{ credentialId: 'A'.repeat(1368) }],
      'credentials[0].credentialId is longer than 1023 bytes for a webauthn recipe.',
    ],
    [
      'a credential id not base64',
      [{ credentialId: 'a b' }],
      'credentials[0].credentialId is not base64url or base64 for a webauthn recipe.',
    ],
    [
      'a key that is not COSE',
      [{ publicKey: Buffer.from('not cbor at all').toString('base64') }],
      'credentials[0].publicKey is not a COSE key for a webauthn recipe.',
    ],
    [
      'an unsupported algorithm',
      [{ publicKey: 'pQECAzgiIAEhWCB5Mzm0LqMUdVaHC2yuSH0xxn0yXvHRW6jjCV6Hf_rt_yJYIIhJgH-vPxqJmoa8xFE_gdOpbBOnbGN5bHdX4UsLLY8R' }],
      'credentials[0].publicKey has an unsupported algorithm -35 for an EC2 key (only ES256, -7) for a webauthn recipe.',
    ],
    ['a negative counter', [{ counter: -1 }], 'credentials[0].counter must be an integer from 0 to 4294967295 for a webauthn recipe.'],
    ['an aaguid that is no UUID', [{ aaguid: 'abc' }], 'credentials[0].aaguid is not a UUID for a webauthn recipe.'],
    ['no rpId', [{ rpId: undefined }], 'credentials[0].rpId is required for a webauthn recipe.'],
    [
      'an RP ID not configured',
      [{ rpId: 'old-tenant.auth0.com' }],
      "credentials[0].rpId 'old-tenant.auth0.com' is not one of the relying-party ids in the setting webauthn_rp_ids (example.com)",
    ],
  ])('refuses %s, naming the field, storing nothing', async (_name, overrides, message) => {
    await truncateAll(t.db);
    const key = new SoftAuthenticator();
    const credentials = (overrides as Record<string, unknown>[]).map((extra) => ({ ...passkeyOf(key), ...extra }));
    const reply = await call(t.app, 'POST', '/bulk-import/users', {
      body: { users: [webauthnUser('old-9', 'e@example.com', credentials)] },
    });
    expect([reply.statusCode, reply.json]).toEqual([
      400,
      {
        error: 'Data has missing or invalid fields. Please check the users field for more details.',
        users: [{ index: 0, errors: [message] }],
      },
    ]);
    expect(await countRows(t.db, 'bulk_import_users')).toBe(0);
  });
});

describe('bulk import of passkeys without configured relying-party ids', () => {
  const t = useTestApp();
  it('refuses the credential, naming the setting', async () => {
    const key = new SoftAuthenticator();
    const reply = await call(t.app, 'POST', '/bulk-import/import', { body: webauthnUser('old-1', 'a@example.com', [passkeyOf(key)]) });
    expect([reply.statusCode, reply.json]).toEqual([
      400,
      { errors: ["credentials[0].rpId 'example.com' cannot be imported: the setting webauthn_rp_ids lists no relying-party id"] },
    ]);
  });
});
