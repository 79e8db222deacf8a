import type { CliIo } from './io.js';

/**
 * What the line shows. The caller's counts are clamped so that the line always adds up:
 * read = sent + not sent + in batch, and sent = processed + in queue once the core is importing.
 */
export interface ProgressCounts {
  /** Records of the export handled or read so far, over every invocation of the run. */
  read: number;
  /** Of those, users sent to the core (in a dry run: users that would be imported). */
  sent: number;
  /** Of those, users not sent: already in the core, conflicting, invalid, skipped or refused. */
  notSent: number;
  /** Of the sent users, those the core has processed; undefined until the run waits for the core. */
  processed?: number;
  /** 0..1 share of the work done, for the bar and the ETA; undefined when unknown. */
  fraction?: number;
}

export interface PhaseLabels {
  sent: string;
  notSent: string;
}

const DEFAULT_LABELS: PhaseLabels = { sent: 'sent', notSent: 'not sent' };
const BAR_WIDTH = 24;
const REDRAW_MS = 100;

/**
 * A bar redrawn in place on a terminal; otherwise one plain line every `intervalMs`, so logs of CI
 * jobs and `nohup` runs stay readable.
 */
export class Progress {
  private phase = '';
  private labels = DEFAULT_LABELS;
  private phaseStart = 0;
  private lastDraw = Number.NEGATIVE_INFINITY;
  private drawn = false;
  private counts: ProgressCounts = { read: 0, sent: 0, notSent: 0 };
  /** The counts last given, not yet made consistent. */
  private latest: ProgressCounts | undefined;
  /** The phase's first counts, so that rate and ETA measure this phase only (a resumed run starts far in). */
  private baseline: { done: number; fraction?: number } | undefined;

  constructor(
    private readonly io: CliIo,
    private readonly intervalMs = 10_000,
  ) {}

  private now(): number {
    return this.io.now?.() ?? Date.now();
  }

  start(phase: string, labels: PhaseLabels = DEFAULT_LABELS): void {
    this.finishLine();
    this.phase = phase;
    this.labels = labels;
    this.phaseStart = this.now();
    this.lastDraw = Number.NEGATIVE_INFINITY;
    this.baseline = undefined;
  }

  update(counts: ProgressCounts, force = false): void {
    // Called for every record or every few read: the counts are made consistent only when they are used.
    this.latest = counts;
    if (this.baseline === undefined || this.baseline.fraction === undefined) {
      this.baseline ??= { done: this.done(), fraction: this.current().fraction };
      this.baseline.fraction ??= this.current().fraction;
    }
    const now = this.now();
    const wait = this.io.isTTY ? REDRAW_MS : this.intervalMs;
    if (!force && now - this.lastDraw < wait) return;
    this.lastDraw = now;
    if (this.io.isTTY) {
      this.io.stderr.write(`\r\x1b[K${this.render(now)}`);
      this.drawn = true;
    } else {
      this.io.stderr.write(`${this.render(now)}\n`);
    }
  }

  /** Ends the current line so that normal output starts on a fresh one. */
  finishLine(): void {
    if (this.drawn) {
      this.io.stderr.write(`\r\x1b[K${this.render(this.now())}\n`);
      this.drawn = false;
    }
  }

  /** What the rate counts: records read while sending, users processed while the core imports. */
  private done(): number {
    const counts = this.current();
    return counts.processed ?? counts.read;
  }

  private current(): ProgressCounts {
    if (this.latest !== undefined) {
      this.counts = consistent(this.latest);
      this.latest = undefined;
    }
    return this.counts;
  }

  private render(now: number): string {
    const { read, sent, notSent, processed, fraction } = this.current();
    const seconds = Math.max((now - this.phaseStart) / 1000, 0.001);
    const rate = Math.max(0, this.done() - (this.baseline?.done ?? 0)) / seconds;
    const parts = [this.phase];
    const inBatch = read - sent - notSent;
    const readParts = [`${this.labels.sent} ${sent}`, `${this.labels.notSent} ${notSent}`, ...(inBatch > 0 ? [`in batch ${inBatch}`] : [])];
    parts.push(`read ${read}: ${readParts.join(', ')}`);
    if (processed !== undefined) parts.push(`${this.labels.sent} ${sent}: processed ${processed}, in queue ${sent - processed}`);
    parts.push(`${Math.round(rate)}/s`);
    const progressed = (fraction ?? 0) - (this.baseline?.fraction ?? 0);
    if (fraction !== undefined && (progressed > 0 || fraction >= 1)) {
      const eta = fraction >= 1 ? 0 : (seconds * (1 - fraction)) / progressed;
      parts.push(`ETA ${formatDuration(eta)}`);
      if (this.io.isTTY) {
        const filled = Math.round(fraction * BAR_WIDTH);
        parts.unshift(`[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}%`);
      }
    }
    return parts.join('  ');
  }
}

// Counts come from several places (the state file of earlier invocations, this one's batches, the core's
// queue, which other imports share): whatever they say, the line never shows a part larger than its whole.
function consistent(counts: ProgressCounts): ProgressCounts {
  const read = whole(counts.read);
  const sent = Math.min(whole(counts.sent), read);
  const notSent = Math.min(whole(counts.notSent), read - sent);
  const fraction =
    counts.fraction === undefined || !Number.isFinite(counts.fraction) ? undefined : Math.min(Math.max(counts.fraction, 0), 1);
  return {
    read,
    sent,
    notSent,
    ...(counts.processed !== undefined && { processed: Math.min(whole(counts.processed), sent) }),
    ...(fraction !== undefined && { fraction }),
  };
}

function whole(value: number): number {
  return Number.isFinite(value) ? Math.max(0, Math.floor(value)) : 0;
}

export function formatDuration(seconds: number): string {
  const total = Number.isFinite(seconds) ? Math.max(0, Math.round(seconds)) : 0;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
}
