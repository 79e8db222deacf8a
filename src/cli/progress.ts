import type { CliIo } from './io.js';

export interface ProgressCounts {
  read: number;
  sent: number;
  imported: number;
  failed: number;
  /** 0..1 share of the work done, for the bar and the ETA; undefined when unknown. */
  fraction?: number;
}

const BAR_WIDTH = 24;
const REDRAW_MS = 100;

/**
 * A bar redrawn in place on a terminal; otherwise one plain line every `intervalMs`, so logs of CI
 * jobs and `nohup` runs stay readable.
 */
export class Progress {
  private phase = '';
  private phaseStart = 0;
  private lastDraw = Number.NEGATIVE_INFINITY;
  private drawn = false;
  private counts: ProgressCounts = { read: 0, sent: 0, imported: 0, failed: 0 };
  /** Where the phase started, so that rate and ETA measure this phase only. */
  private atStart: ProgressCounts = { ...this.counts };

  constructor(
    private readonly io: CliIo,
    private readonly intervalMs = 10_000,
  ) {}

  private now(): number {
    return this.io.now?.() ?? Date.now();
  }

  start(phase: string): void {
    this.finishLine();
    this.phase = phase;
    this.phaseStart = this.now();
    this.lastDraw = Number.NEGATIVE_INFINITY;
    // The share done is measured differently in each phase: its first value is the baseline.
    this.atStart = { ...this.counts, fraction: undefined };
  }

  update(counts: ProgressCounts, force = false): void {
    this.counts = counts;
    this.atStart.fraction ??= counts.fraction;
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

  private render(now: number): string {
    const { read, sent, imported, failed, fraction } = this.counts;
    const start = this.atStart;
    const seconds = Math.max((now - this.phaseStart) / 1000, 0.001);
    const done = this.phase === 'sending' ? read - start.read : imported - start.imported;
    const parts = [
      `${this.phase}`,
      `read ${read}`,
      `sent ${sent}`,
      `imported ${imported}`,
      `failed ${failed}`,
      `${Math.round(done / seconds)}/s`,
    ];
    const progressed = (fraction ?? 0) - (start.fraction ?? 0);
    if (fraction !== undefined && (progressed > 0 || fraction >= 1)) {
      const eta = fraction >= 1 ? 0 : (seconds * (1 - fraction)) / progressed;
      parts.push(`ETA ${formatDuration(eta)}`);
      if (this.io.isTTY) {
        const filled = Math.round(Math.min(fraction, 1) * BAR_WIDTH);
        parts.unshift(`[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}%`);
      }
    }
    return parts.join('  ');
  }
}

export function formatDuration(seconds: number): string {
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
}
