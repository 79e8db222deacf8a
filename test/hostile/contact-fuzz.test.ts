import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkEmail, checkPhoneNumber } from '../../src/normalise/contact.js';
import { call, useTestApp } from '../helper.js';
import { consumeWithLink, createCode } from '../recipes/passwordless/flow-helpers.js';
import { emailEntryPoints, phoneEntryPoints, type Existing } from '../normalise/entry-points.js';
import { isContractError } from './support/contract-messages.js';
import { fingerprint } from './support/fingerprint.js';
import { contactValue } from './support/mutations.js';

// Generated emails and phone numbers on every route that takes one. Each answer is a contract 400 that wrote
// nothing or a 200; and whatever is stored is already in the form the rules produce (NFC, lower case, no
// invisible characters, E.164), so no two spellings of one contact can ever be two rows.
const runs = Math.ceil(Number(process.env.FUZZ_RUNS ?? 10_000) / 5);
const baseSeed = process.env.FUZZ_SEED === 'random' ? Date.now() : Number(process.env.FUZZ_SEED ?? 20261123);

const entryPoints = [
  ...phoneEntryPoints.map((entry) => ({ ...entry, field: 'phoneNumber' as const })),
  ...emailEntryPoints.map((entry) => ({ ...entry, field: 'email' as const })),
];

describe('fuzzing contacts', () => {
  let existing: Existing;
  const t = useTestApp({ log_level: 'ERROR', bulk_import_worker: false });
  beforeAll(async () => {
    const passwordless = await consumeWithLink(t.app, await createCode(t.app, { email: 'pl@example.com' }));
    const emailPassword = await call(t.app, 'POST', '/recipe/signup', { body: { email: 'ep@example.com', password: 'a password' } });
    existing = { passwordlessUserId: passwordless.json.user.id, emailPasswordUserId: emailPassword.json.user.id };
  });

  it(
    `stores only normalised contacts and refuses the rest cleanly, over ${runs} requests`,
    async () => {
      const answered: Record<number, number> = {};
      await fc.assert(
        fc.asyncProperty(fc.nat(entryPoints.length - 1), contactValue, async (index, value) => {
          const entry = entryPoints[index];
          const before = await fingerprint(t.db.pool);
          const { method, url, ...options } = entry.request(value, existing);
          const reply = await call(t.app, method, url, options);
          answered[reply.statusCode] = (answered[reply.statusCode] ?? 0) + 1;
          const context = `${entry.name} ${JSON.stringify(value)} → ${reply.statusCode} ${reply.body.slice(0, 300)}`;
          if (reply.statusCode === 400) {
            expect(isContractError(400, reply.body), context).toBe(true);
            expect(await fingerprint(t.db.pool), context).toEqual(before);
            return;
          }
          expect(reply.statusCode, context).toBe(200);
          if (url === '/bulk-import/users') await t.app.services.bulkImportWorker.processUntilEmpty();
          const { rows } = await t.db.pool.query<{ email: string | null; phone_number: string | null }>(
            'SELECT email, phone_number FROM users UNION ALL SELECT email, phone_number FROM passwordless_devices',
          );
          for (const { email, phone_number: phoneNumber } of rows) {
            if (email !== null) expect(checkEmail(email), context).toEqual({ ok: true, value: email });
            if (phoneNumber !== null) expect(checkPhoneNumber(phoneNumber), context).toEqual({ ok: true, value: phoneNumber });
          }
        }),
        { numRuns: runs, seed: baseSeed, endOnFailure: true },
      );
      expect(answered[200]).toBeGreaterThan(runs / 40);
      expect(answered[400]).toBeGreaterThan(runs / 4);
    },
    Math.max(120_000, runs * 60),
  );
});
