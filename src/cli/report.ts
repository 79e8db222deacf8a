import fs from 'node:fs';
import type { MethodSummary } from './bulk-user.js';
import type { Results, Stage } from './results.js';
import { isProviderDomain } from './passkey-rp-check.js';
import type { ReportedTenant } from './organizations/tenants.js';

export interface ReportContext {
  source: string;
  file: string;
  coreUrl: string;
  coreId: string;
  dryRun: boolean;
  /** Interrupted, or stopped waiting for the core: totals cover the records handled so far. */
  partial: boolean;
  startedAt: Date;
  finishedAt: Date;
  /** Why the users counted as still queued could not be settled with the core (it was lost mid-run). */
  unsettledBecause?: string;
  /** Written as the run starts: a run killed before it wrote its end leaves this report, which undo reads. */
  running?: boolean;
  /** A real run's own files, where undo finds what it sent and what it leaves for a re-run to clear. */
  progress?: RunFiles;
  /** The tenants the run created or found for the source's organizations (docs/organizations.md). */
  tenants?: ReportedTenant[];
}

/** Absolute paths of a real run's side files, and the start of the run they belong to. */
export interface RunFiles {
  runStartedAt: string;
  stateFile: string;
  sentLog: string;
  intentLog: string;
  createdLog: string;
}

// The terminal summary stops listing after this many lines per section; the JSON report has all.
const MAX_LISTED = 1000;

// read = imported + alreadyImported + completed + failed + invalid + skipped + stillQueued (the dry run: wouldImport
// for imported, wouldComplete for completed, wouldFail for failed, no stillQueued); withCollisions and
// withDataNotCarried count imported users again.
export function buildReport(results: Results, context: ReportContext) {
  const skipped = results.count('skipped');
  const totals = context.dryRun
    ? {
        read: results.read,
        wouldImport: results.wouldImport,
        alreadyImported: results.alreadyImported,
        wouldComplete: results.completed.length,
        wouldFail: results.failed,
        invalid: results.invalid,
        skipped,
        withCollisions: results.collisions.length,
        withDataNotCarried: results.notCarried.length,
      }
    : {
        read: results.read,
        imported: results.imported,
        alreadyImported: results.alreadyImported,
        completed: results.completed.length,
        failed: results.failed,
        invalid: results.invalid,
        skipped,
        stillQueued: results.stillQueued,
        withCollisions: results.collisions.length,
        withDataNotCarried: results.notCarried.length,
      };
  return {
    source: context.source,
    file: context.file,
    coreUrl: context.coreUrl,
    coreId: context.coreId,
    dryRun: context.dryRun,
    partial: context.partial,
    ...(context.running === true && { running: true }),
    startedAt: context.startedAt.toISOString(),
    finishedAt: context.finishedAt.toISOString(),
    totals,
    ...(context.unsettledBecause !== undefined && { unsettledBecause: context.unsettledBecause }),
    ...(context.progress !== undefined && { progress: context.progress }),
    ...(context.tenants !== undefined && { tenants: context.tenants }),
    ...(results.weakHashes > 0 && { weakHashes: results.weakHashes }),
    notImported: [...results.notImported].sort((a, b) => a.record - b.record),
    collisions: results.collisions,
    carried: carriedByUsersKept(results),
    notCarried: results.notCarried,
    completed: results.completed,
    canary: results.canary,
    ...(results.passkeyRpIds.size > 0 && { passkeys: passkeySummary(results) }),
  };
}

/**
 * The relying-party ids of the export's passkeys: a passkey works only under the RP ID it was made for, so the app
 * must keep serving each (its sign-in page on it or a subdomain) and the core must list it in webauthn_rp_ids.
 */
function passkeySummary(results: Results) {
  const configured = results.coreRpIds;
  const rpIds = [...results.passkeyRpIds].map(([rpId, counts]) => ({
    rpId: rpId === '' ? null : rpId,
    found: counts.found,
    carried: counts.carried,
    configuredAtCore: rpId !== '' && Array.isArray(configured) ? configured.includes(rpId) : false,
  }));
  return { coreRpIds: configured ?? null, rpIds };
}

export type Report = ReturnType<typeof buildReport>;

// What a user was sent with means nothing for a user the core refused or that was never sent: those are listed
// under notImported with the reason instead.
function carriedByUsersKept(results: Results) {
  if (results.notImported.length === 0) return results.carried;
  const notImported = new Set(results.notImported.map((entry) => entry.record));
  return results.carried.filter((entry) => !notImported.has(entry.record));
}

/**
 * Writes the report with `created` (what `migrate undo` reads) as its last key, copied from the created list a
 * chunk at a time, one user a line: a run that created a million users never holds them all. The lines are copied
 * as bytes: decoded, split and joined as text they took 0.23 s at 200,000 users, after the core's last answer.
 */
export function writeReport(path: string, report: Report, created: Iterable<Buffer>): void {
  const temporary = `${path}.tmp`;
  const head = JSON.stringify({ ...report, created: [] }, null, 2);
  const descriptor = fs.openSync(temporary, 'w');
  try {
    fs.writeSync(descriptor, `${head.slice(0, head.lastIndexOf('[]'))}[`);
    let first = true;
    let buffer = Buffer.alloc(0);
    for (const lines of created) {
      const size = lines.length + lineCount(lines) * NEXT_ELEMENT.length;
      if (buffer.length < size) buffer = Buffer.allocUnsafe(size);
      const length = copyAsElements(lines, buffer, first);
      if (length === 0) continue;
      fs.writeSync(descriptor, buffer, 0, length);
      first = false;
    }
    fs.writeSync(descriptor, first ? ']\n}\n' : '\n  ]\n}\n');
  } finally {
    fs.closeSync(descriptor);
  }
  fs.renameSync(temporary, path);
}

const FIRST_ELEMENT = Buffer.from('\n    ');
const NEXT_ELEMENT = Buffer.from(',\n    ');

/** Lines, the last one with or without its line feed. */
function lineCount(lines: Buffer): number {
  let count = lines.length > 0 && lines[lines.length - 1] !== LINE_FEED ? 1 : 0;
  for (let end = lines.indexOf(LINE_FEED); end !== -1; end = lines.indexOf(LINE_FEED, end + 1)) count++;
  return count;
}

/** JSON lines as elements of an indented JSON array, into `target`; returns the bytes written. */
function copyAsElements(lines: Buffer, target: Buffer, first: boolean): number {
  let length = 0;
  for (let start = 0; start < lines.length;) {
    const feed = lines.indexOf(LINE_FEED, start);
    const end = feed === -1 ? lines.length : feed;
    if (end > start) {
      length += (first ? FIRST_ELEMENT : NEXT_ELEMENT).copy(target, length);
      length += lines.copy(target, length, start, end);
      first = false;
    }
    start = end + 1;
  }
  return length;
}

const LINE_FEED = 0x0a;

const STAGE_LABELS: Record<Stage, string> = {
  source: 'invalid in the export',
  duplicate: 'twin in the export',
  skipped: 'skipped',
  validation: 'refused by the core',
  conflict: 'conflicts with another user in the core',
  import: 'failed in the core',
  lost: 'not in the core',
};

const TOTAL_LABELS: Record<string, string> = {
  read: 'users read',
  imported: 'imported',
  wouldImport: 'would be imported',
  alreadyImported: 'already in the core before this run',
  completed: 'completed with what they lacked',
  wouldComplete: 'would be completed',
  failed: 'failed',
  wouldFail: 'would fail',
  invalid: 'invalid',
  skipped: 'skipped',
  stillQueued: "still in the core's queue",
  withCollisions: 'imported with some login methods left out',
  withDataNotCarried: 'imported without some of their data',
};

export function formatSummary(report: Report, reportPath: string | undefined): string {
  const lines: string[] = [];
  const verb = report.dryRun ? 'Dry run of' : 'Migration of';
  lines.push(
    `${verb} ${report.file} (${report.source}) into ${report.coreUrl}${report.partial ? ' (partial: the run did not finish)' : ''}`,
  );
  const totals = Object.entries(report.totals) as [string, number][];
  const width = Math.max(...totals.map(([name]) => TOTAL_LABELS[name].length));
  for (const [name, value] of totals) lines.push(`  ${TOTAL_LABELS[name].padEnd(width)}  ${value}`);
  if (report.unsettledBecause !== undefined) {
    lines.push('', `Still queued includes every user not settled: ${report.unsettledBecause}. Run the same command again.`);
  }
  if (report.weakHashes !== undefined) {
    lines.push(
      '',
      `${report.weakHashes} users have a password hash in a weak format (plain or salted digest, HMAC, md5-crypt, phpass, PBKDF2 with few iterations):`,
      '  turn on password_rehash_on_signin in the core so each moves to the configured algorithm at its next sign-in.',
    );
  }

  if (report.notImported.length > 0) {
    lines.push('', report.dryRun ? 'Would not be imported:' : 'Not imported:');
    for (const entry of report.notImported.slice(0, MAX_LISTED)) {
      lines.push(`  ${entry.user} (record ${entry.record}, ${STAGE_LABELS[entry.stage]}): ${entry.reason}`);
    }
    if (report.notImported.length > MAX_LISTED) lines.push(`  ... and ${report.notImported.length - MAX_LISTED} more in the report`);
  }
  if (report.collisions.length > 0) {
    lines.push('', 'Login methods not imported (each user keeps the others):');
    for (const collision of report.collisions.slice(0, MAX_LISTED)) {
      const others = collision.notImported.map(describeMethod).join(', ');
      lines.push(`  ${collision.user} (record ${collision.record}): kept ${describeMethod(collision.imported)}; not imported: ${others}`);
    }
    if (report.collisions.length > MAX_LISTED) lines.push(`  ... and ${report.collisions.length - MAX_LISTED} more in the report`);
  }
  if (report.carried.length > 0) {
    // Counted here, listed per user in the report: on a large export nearly every user may hold a role.
    const count = (prefix: string) => report.carried.filter((entry) => entry.items.some((item) => item.startsWith(prefix))).length;
    const parts = [
      ['roles', count('roles: ')],
      ['TOTP devices', count('totp device ')],
      ['recovery codes', count('recovery codes: ')],
      ['phone second factors', count('second factor otp-phone: ')],
      ['passkeys', count('passkey ')],
      ['marked to re-enrol', count('marked to re-enrol ')],
    ].filter(([, n]) => n !== 0);
    lines.push(
      '',
      `Carried beyond login methods: ${report.carried.length} user${report.carried.length === 1 ? '' : 's'} (${parts.map(([name, n]) => `${name} ${n}`).join(', ')}); each is listed in the report.`,
    );
  }
  if (report.tenants !== undefined) lines.push('', ...tenantLines(report.tenants, report.dryRun));
  if (report.passkeys !== undefined) lines.push('', ...passkeyLines(report.passkeys, report.dryRun));
  if (report.notCarried.length > 0) {
    lines.push('', 'Data not carried, and why:');
    for (const entry of report.notCarried.slice(0, MAX_LISTED))
      lines.push(`  ${entry.user} (record ${entry.record}): ${entry.fields.join('; ')}`);
    if (report.notCarried.length > MAX_LISTED) lines.push(`  ... and ${report.notCarried.length - MAX_LISTED} more in the report`);
  }
  if (report.completed.length > 0) {
    lines.push(
      '',
      report.dryRun
        ? 'Would be completed (users in the core before, lacking some of the export):'
        : 'Completed (users in the core before this run, given what they lacked):',
    );
    for (const entry of report.completed.slice(0, MAX_LISTED)) {
      lines.push(`  ${entry.user} (record ${entry.record}): ${report.dryRun ? 'lacks' : 'added'} ${entry.added.join(', ')}`);
    }
    if (report.completed.length > MAX_LISTED) lines.push(`  ... and ${report.completed.length - MAX_LISTED} more in the report`);
  }
  if (reportPath !== undefined) lines.push('', `Report: ${reportPath}`);
  return `${lines.join('\n')}\n`;
}

function tenantLines(tenants: readonly ReportedTenant[], dryRun: boolean): string[] {
  const lines = [dryRun ? 'Tenants (none created by a dry run):' : 'Tenants:'];
  for (const tenant of tenants.slice(0, MAX_LISTED)) {
    const state = dryRun
      ? tenant.existsInCore
        ? 'in the core already'
        : 'would be created'
      : tenant.createdByRun
        ? 'created by this run'
        : 'in the core before';
    const factors =
      tenant.firstFactors === null ? 'login methods: the SDK recipes' : `login methods: ${tenant.firstFactors.join(', ') || 'none'}`;
    lines.push(`  ${tenant.tenantId} from ${tenant.sourceId} (${state}; ${factors})`);
    for (const item of tenant.notCarried) lines.push(`    not carried: ${item}`);
  }
  if (tenants.length > MAX_LISTED) lines.push(`  ... and ${tenants.length - MAX_LISTED} more in the report`);
  return lines;
}

function passkeyLines(passkeys: NonNullable<Report['passkeys']>, dryRun: boolean): string[] {
  const lines = ['Passkeys by relying-party id (a passkey signs in only under the RP ID it was made for):'];
  for (const entry of passkeys.rpIds) {
    const name = entry.rpId ?? '(not in the export: pass --rp-id)';
    const state =
      entry.rpId === null ? 'left behind' : entry.configuredAtCore ? 'configured at the core' : "NOT in the core's webauthn_rp_ids";
    lines.push(`  ${name}: ${entry.found} found, ${entry.carried} ${dryRun ? 'would be carried' : 'carried'} (${state})`);
  }
  const known = passkeys.rpIds.map((entry) => entry.rpId).filter((rpId): rpId is string => rpId !== null);
  const keep = known.filter((rpId) => !isProviderDomain(rpId));
  const stranded = known.filter((rpId) => !keep.includes(rpId));
  if (stranded.length > 0) lines.push(`  ${stranded.join(', ')}: the old provider's own domain; those passkeys cannot move`);
  if (keep.length > 0) {
    lines.push(
      `  The app must keep serving ${keep.join(', ')}: sign-in pages on that domain or a subdomain, getRelyingPartyId set to it,`,
      `  and the core's webauthn_rp_ids listing it (docs/passkeys.md, "What a migrating app must keep").`,
    );
  }
  return lines;
}

function describeMethod(method: MethodSummary): string {
  const parts: string[] = [method.recipeId];
  if (method.thirdPartyId !== undefined) parts.push(`${method.thirdPartyId}/${method.thirdPartyUserId ?? '?'}`);
  if (method.email !== undefined) parts.push(method.email);
  if (method.phoneNumber !== undefined) parts.push(method.phoneNumber);
  const text = parts.join(' ');
  return method.problem === undefined ? text : `${text} [${method.problem}]`;
}
