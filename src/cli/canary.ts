import type { SourceRecord } from './bulk-user.js';
import { explainWrongCredentials, localHasher } from './canary-diagnosis.js';
import { CliError } from './cli-error.js';
import type { CoreClient } from './core-client.js';
import { ALREADY_EXISTS } from './already-exists.js';
import { checkPresence } from './presence-check.js';
import type { PasswordCheck } from './options.js';
import type { OpenedSource } from './readers/index.js';
import type { HashConfig } from './readers/hash-config.js';
import type { CanaryOutcome } from './results.js';

export interface CanaryContext {
  client: CoreClient;
  checks: PasswordCheck[];
  /** A fresh pass over the export. */
  open(): OpenedSource;
  hashConfig?: HashConfig;
  dryRun: boolean;
  log(line: string): void;
}

/**
 * Imports the canary users one by one and signs in as each, before anything else is sent. Returns the
 * users this run imported, with their ids in the core (the bulk run leaves them out). Throws, importing
 * nothing else, when one cannot sign in.
 */
export async function runCanaries(
  context: CanaryContext,
): Promise<{ created: { email: string; userId: string }[]; outcomes: CanaryOutcome[] }> {
  const records = await findCanaryRecords(context);
  const hasher = localHasher(context.hashConfig);
  const imported: { email: string; userId: string }[] = [];
  const outcomes: CanaryOutcome[] = [];
  // Users created here are removed again if a later canary fails, so that a corrected run can
  // import them with the right hash instead of finding them "already there".
  const created: string[] = [];
  try {
    for (const check of context.checks) {
      const record = records.get(check.email.toLowerCase()) as SourceRecord;
      const method = record.user!.loginMethods[0];
      const hash = method.passwordHash as string;
      const local = await hasher.verify(check.password, hash);
      if (context.dryRun) {
        if (local !== 'MATCH') {
          const why = await explainWrongCredentials({ ...check, hash, local, existedBefore: false, hasher });
          throw new CliError(`canary ${check.email}: ${why}`);
        }
        outcomes.push({ email: check.email, result: 'password verifies against the export (checked locally: dry run)' });
        context.log(`canary ${check.email}: the password verifies against the export with these settings`);
        continue;
      }
      const result = await context.client.importUser(record.user!);
      let existedBefore = false;
      if (result.ok) {
        created.push(result.userId);
      } else if (result.errors.every((error) => ALREADY_EXISTS.test(error))) {
        existedBefore = true;
      } else {
        throw new CliError(`canary ${check.email}: the core refused the user: ${result.errors.join('; ')}`);
      }
      const status = await context.client.signIn(method.email as string, check.password);
      if (status !== 'OK') {
        const why =
          status === 'WRONG_CREDENTIALS_ERROR'
            ? await explainWrongCredentials({ ...check, hash, local, existedBefore, hasher })
            : `sign-in answered ${status}`;
        throw new CliError(`canary ${check.email} cannot sign in after the import (${status}): ${why}\nNothing else was imported.`);
      }
      if (!existedBefore) {
        const [presence] = await checkPresence(context.client, [record]);
        if (presence.kind === 'present') imported.push({ email: method.email as string, userId: presence.userId });
      }
      const outcome = existedBefore ? 'was already in the core; signed in' : 'imported and signed in';
      outcomes.push({ email: check.email, result: outcome });
      context.log(`canary ${check.email}: ${outcome}`);
    }
  } catch (error) {
    for (const userId of created) await context.client.removeUser(userId).catch(() => undefined);
    if (created.length > 0 && error instanceof CliError) {
      throw new CliError(`${error.message}\nThe ${created.length} canary user(s) imported by this run were removed again.`);
    }
    throw error;
  }
  return { created: imported, outcomes };
}

async function findCanaryRecords(context: CanaryContext): Promise<Map<string, SourceRecord>> {
  const wanted = new Set(context.checks.map((check) => check.email.toLowerCase()));
  const found = new Map<string, SourceRecord>();
  const source = context.open();
  for await (const record of source.records) {
    const method = record.user?.loginMethods[0];
    const email = method?.email?.toLowerCase();
    if (method?.recipeId === 'emailpassword' && email !== undefined && wanted.has(email) && !found.has(email)) {
      found.set(email, record);
      if (found.size === wanted.size) break;
    } else if (record.problem && wanted.has(record.key.toLowerCase())) {
      throw new CliError(`canary ${record.key} cannot be imported: ${record.problem.reason}`);
    }
  }
  for (const email of wanted) {
    if (!found.has(email)) throw new CliError(`canary ${email}: no password user with this email in the export`);
  }
  return found;
}
