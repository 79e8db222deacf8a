import fs from 'node:fs';
import type { MethodSummary } from './bulk-user.js';
import type { Results } from './results.js';

export interface ReportContext {
  source: string;
  file: string;
  coreUrl: string;
  dryRun: boolean;
  startedAt: Date;
  finishedAt: Date;
}

// The terminal summary stops listing after this many lines per section; the JSON report has all.
const MAX_LISTED = 1000;

export function buildReport(results: Results, context: ReportContext) {
  const invalid = results.count('source') + results.count('validation');
  const totals = context.dryRun
    ? {
        read: results.read,
        wouldImport: results.wouldImport,
        alreadyImported: results.alreadyImported,
        conflicts: results.count('conflict'),
        invalid,
        skipped: results.count('skipped'),
        withCollisions: results.collisions.length,
      }
    : {
        read: results.read,
        imported: results.imported,
        alreadyImported: results.alreadyImported,
        failed: results.count('import'),
        invalid,
        skipped: results.count('skipped'),
        stillQueued: results.stillQueued,
        withCollisions: results.collisions.length,
      };
  return {
    source: context.source,
    file: context.file,
    coreUrl: context.coreUrl,
    dryRun: context.dryRun,
    startedAt: context.startedAt.toISOString(),
    finishedAt: context.finishedAt.toISOString(),
    totals,
    // In export order; queue rows (which do not know their position) last.
    notImported: [...results.notImported].sort((a, b) => (a.record ?? Infinity) - (b.record ?? Infinity)),
    collisions: results.collisions,
    canary: results.canary,
  };
}

export type Report = ReturnType<typeof buildReport>;

export function writeReport(path: string, report: Report): void {
  const temporary = `${path}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(report, null, 2)}\n`);
  fs.renameSync(temporary, path);
}

const STAGE_LABELS: Record<string, string> = {
  source: 'invalid in the export',
  skipped: 'skipped',
  validation: 'refused by the core',
  import: 'failed in the core',
  conflict: 'conflicts with an existing user',
};

const TOTAL_LABELS: Record<string, string> = {
  read: 'users read',
  imported: 'imported',
  wouldImport: 'would be imported',
  alreadyImported: 'already in the core (sent twice or earlier run)',
  failed: 'failed in the core',
  conflicts: 'conflict with existing users',
  invalid: 'invalid',
  skipped: 'skipped',
  stillQueued: "still in the core's queue",
  withCollisions: 'imported with one login method of several',
};

export function formatSummary(report: Report, reportPath: string | undefined): string {
  const lines: string[] = [];
  const verb = report.dryRun ? 'Dry run of' : 'Migration of';
  lines.push(`${verb} ${report.file} (${report.source}) into ${report.coreUrl}`);
  const totals = Object.entries(report.totals) as [string, number][];
  const width = Math.max(...totals.map(([name]) => TOTAL_LABELS[name].length));
  for (const [name, value] of totals) lines.push(`  ${TOTAL_LABELS[name].padEnd(width)}  ${value}`);

  if (report.notImported.length > 0) {
    lines.push('', report.dryRun ? 'Would not be imported:' : 'Not imported:');
    for (const entry of report.notImported.slice(0, MAX_LISTED)) {
      const where = entry.record === undefined ? '' : `record ${entry.record}, `;
      lines.push(`  ${entry.user} (${where}${STAGE_LABELS[entry.stage]}): ${entry.reason}`);
    }
    if (report.notImported.length > MAX_LISTED) lines.push(`  ... and ${report.notImported.length - MAX_LISTED} more in the report`);
  }
  if (report.collisions.length > 0) {
    lines.push('', 'Collisions (no account linking: only one login method per user is imported):');
    for (const collision of report.collisions.slice(0, MAX_LISTED)) {
      const others = collision.notImported.map(describeMethod).join(', ');
      lines.push(`  ${collision.user} (record ${collision.record}): kept ${describeMethod(collision.imported)}; not imported: ${others}`);
    }
    if (report.collisions.length > MAX_LISTED) lines.push(`  ... and ${report.collisions.length - MAX_LISTED} more in the report`);
  }
  if (reportPath !== undefined) lines.push('', `Report: ${reportPath}`);
  return `${lines.join('\n')}\n`;
}

function describeMethod(method: MethodSummary): string {
  const parts: string[] = [method.recipeId];
  if (method.thirdPartyId !== undefined) parts.push(`${method.thirdPartyId}/${method.thirdPartyUserId ?? '?'}`);
  if (method.email !== undefined) parts.push(method.email);
  if (method.phoneNumber !== undefined) parts.push(method.phoneNumber);
  const text = parts.join(' ');
  return method.problem === undefined ? text : `${text} [${method.problem}]`;
}
