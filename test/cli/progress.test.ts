import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Progress, formatDuration, type ProgressCounts } from '../../src/cli/progress.js';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { migrateArgs, runCommand, startCore, type RunningCore } from './harness.js';

function terminal(isTTY: boolean) {
  const output: string[] = [];
  let now = 0;
  const io = { stdout: { write: () => true }, stderr: { write: (text: string) => output.push(text) }, isTTY, env: {}, now: () => now };
  return { output, io, advance: (ms: number) => (now += ms) };
}

/** The numbers of one line, checked to add up the way the line says they do. */
function checkLine(line: string) {
  const text = line.replace(/^\r\x1b\[K/, '').replace(/\n$/, '');
  const read = /read (\d+): [a-z ]+ (\d+), [a-z ]+ (\d+)(?:, in batch (\d+))?/.exec(text);
  expect(read, text).not.toBeNull();
  const [total, sent, notSent, inBatch] = read!.slice(1).map((value) => Number(value ?? 0));
  expect(sent + notSent + inBatch, text).toBe(total);
  const queue = /[a-z ]+ (\d+): processed (\d+), in queue (\d+)/.exec(text);
  if (queue) {
    expect(Number(queue[1]), text).toBe(sent);
    expect(Number(queue[2]) + Number(queue[3]), text).toBe(sent);
  }
  const rate = / {2}(\S+)\/s/.exec(text);
  expect(rate?.[1], text).toMatch(/^\d+$/);
  expect(text).not.toMatch(/NaN|Infinity|-\d/);
}

describe('progress', () => {
  it('redraws one bar in place on a terminal, at most ten times a second', () => {
    const { output, io, advance } = terminal(true);
    const progress = new Progress(io);
    progress.start('sending');
    progress.update({ read: 0, sent: 0, notSent: 0, fraction: 0 });
    advance(2000);
    progress.update({ read: 1000, sent: 800, notSent: 150, fraction: 0.25 });
    advance(50);
    progress.update({ read: 1001, sent: 800, notSent: 150, fraction: 0.25 });
    progress.finishLine();
    expect(output).toEqual([
      '\r\x1b[Ksending  read 0: sent 0, not sent 0  0/s',
      '\r\x1b[K[######..................] 25%  sending  read 1000: sent 800, not sent 150, in batch 50  500/s  ETA 6s',
      '\r\x1b[K[######..................] 25%  sending  read 1001: sent 800, not sent 150, in batch 51  488/s  ETA 6s\n',
    ]);
  });

  it('writes plain lines every interval elsewhere, and measures the rate of each phase from where it started', () => {
    const { output, io, advance } = terminal(false);
    const progress = new Progress(io, 10_000);
    progress.start('sending');
    progress.update({ read: 0, sent: 0, notSent: 0, fraction: 0 });
    advance(1000);
    progress.update({ read: 1000, sent: 900, notSent: 100, fraction: 1 }, true);
    progress.start('importing');
    progress.update({ read: 1000, sent: 900, notSent: 100, processed: 180, fraction: 0.2 });
    advance(10_000);
    progress.update({ read: 1000, sent: 900, notSent: 100, processed: 360, fraction: 0.4 });
    advance(5_000);
    progress.update({ read: 1000, sent: 900, notSent: 100, processed: 540, fraction: 0.6 });
    advance(5_000);
    progress.update({ read: 1000, sent: 900, notSent: 100, processed: 900, fraction: 1 });
    progress.finishLine();
    expect(output).toEqual([
      'sending  read 0: sent 0, not sent 0  0/s\n',
      'sending  read 1000: sent 900, not sent 100  1000/s  ETA 0s\n',
      'importing  read 1000: sent 900, not sent 100  sent 900: processed 180, in queue 720  0/s\n',
      'importing  read 1000: sent 900, not sent 100  sent 900: processed 360, in queue 540  18/s  ETA 30s\n',
      'importing  read 1000: sent 900, not sent 100  sent 900: processed 900, in queue 0  36/s  ETA 0s\n',
    ]);
  });

  it('a resumed run counts its rate from where it resumed, not from the start of the export', () => {
    const { output, io, advance } = terminal(false);
    const progress = new Progress(io, 0);
    progress.start('sending');
    progress.update({ read: 50_000, sent: 49_000, notSent: 1000 });
    advance(2000);
    progress.update({ read: 51_000, sent: 49_000, notSent: 1000 });
    expect(output[1]).toBe('sending  read 51000: sent 49000, not sent 1000, in batch 1000  500/s\n');
  });

  it('adds up on every line and never shows a negative or unknown rate, whatever the counts and the clock do', () => {
    const { output, io, advance } = terminal(false);
    const progress = new Progress(io, 0);
    const awkward: ProgressCounts[] = [
      { read: 10, sent: 25, notSent: 3 },
      { read: 10, sent: 4, notSent: 9 },
      { read: 5, sent: 1, notSent: 1, fraction: 0.9 },
      { read: Number.NaN, sent: -3, notSent: Number.POSITIVE_INFINITY, fraction: Number.NaN },
      { read: 12.7, sent: 3.2, notSent: 1, processed: 8 },
      { read: 100, sent: 80, notSent: 20, processed: -5, fraction: -1 },
      { read: 100, sent: 80, notSent: 20, processed: 20, fraction: 2 },
    ];
    for (const phase of ['sending', 'importing', 'checking the core']) {
      progress.start(phase);
      for (const [i, counts] of awkward.entries()) {
        advance(i % 2 === 0 ? 700 : -1500);
        progress.update(counts, true);
      }
    }
    expect(output).toHaveLength(awkward.length * 3);
    for (const line of output) checkLine(line);
  });

  it.each([
    [0, '0s'],
    [59.4, '59s'],
    [61, '1m01s'],
    [3600 * 2 + 65, '2h01m'],
    [Number.NaN, '0s'],
    [-4, '0s'],
  ])('formats %d seconds as %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});

describe('progress of the real command', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore();
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  it('shows the users read and sent, and every line adds up', async () => {
    const passwordHash = bcryptHash('pw');
    const lines = Array.from({ length: 7 }, (_, i) =>
      JSON.stringify({ externalUserId: `p${i}`, email: `p${i}@example.com`, passwordHash }),
    );
    lines.push(JSON.stringify({ externalUserId: 'bad', email: 'not an email', passwordHash }));
    const file = temp.file('progress.ndjson', `${lines.join('\n')}\n`);

    const result = await runCommand(migrateArgs(core, 'ndjson', file, '--batch-size', '3'));

    expect(result.code).toBe(1);
    const progressLines = result.stderr.split('\n').filter((line) => /^(sending|importing) /.test(line));
    expect(progressLines[0]).toMatch(/^sending /);
    // The core imports each batch before it answers: nothing is left to wait for in its queue.
    expect(progressLines.at(-1)).toMatch(/^sending {2}read 8: sent 7, not sent 1 {2}\d+\/s {2}ETA 0s$/);
    for (const line of progressLines) checkLine(line);
  });
});
