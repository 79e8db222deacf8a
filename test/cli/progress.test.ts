import { describe, expect, it } from 'vitest';
import { Progress, formatDuration } from '../../src/cli/progress.js';

function terminal(isTTY: boolean) {
  const output: string[] = [];
  let now = 0;
  const io = { stdout: { write: () => true }, stderr: { write: (text: string) => output.push(text) }, isTTY, env: {}, now: () => now };
  return { output, io, advance: (ms: number) => (now += ms) };
}

describe('progress', () => {
  it('redraws one bar in place on a terminal, at most ten times a second', () => {
    const { output, io, advance } = terminal(true);
    const progress = new Progress(io);
    progress.start('sending');
    progress.update({ read: 0, sent: 0, imported: 0, failed: 0, fraction: 0 });
    advance(2000);
    progress.update({ read: 1000, sent: 800, imported: 500, failed: 3, fraction: 0.25 });
    advance(50);
    progress.update({ read: 1001, sent: 800, imported: 500, failed: 3, fraction: 0.25 });
    progress.finishLine();
    expect(output).toEqual([
      '\r\x1b[Ksending  read 0  sent 0  imported 0  failed 0  0/s',
      '\r\x1b[K[######..................] 25%  sending  read 1000  sent 800  imported 500  failed 3  500/s  ETA 6s',
      '\r\x1b[K[######..................] 25%  sending  read 1001  sent 800  imported 500  failed 3  488/s  ETA 6s\n',
    ]);
  });

  it('writes plain lines every interval elsewhere', () => {
    const { output, io, advance } = terminal(false);
    const progress = new Progress(io, 10_000);
    progress.start('sending');
    advance(1000);
    progress.update({ read: 1000, sent: 1000, imported: 200, failed: 0, fraction: 1 }, true);
    progress.start('importing');
    progress.update({ read: 1000, sent: 1000, imported: 200, failed: 0, fraction: 0.2 });
    advance(10_000);
    progress.update({ read: 1000, sent: 1000, imported: 400, failed: 0, fraction: 0.4 });
    advance(5_000);
    progress.update({ read: 1000, sent: 1000, imported: 600, failed: 0, fraction: 0.6 });
    advance(5_000);
    progress.update({ read: 1000, sent: 1000, imported: 1000, failed: 0, fraction: 1 });
    progress.finishLine();
    expect(output).toEqual([
      'sending  read 1000  sent 1000  imported 200  failed 0  1000/s  ETA 0s\n',
      'importing  read 1000  sent 1000  imported 200  failed 0  0/s\n',
      'importing  read 1000  sent 1000  imported 400  failed 0  20/s  ETA 30s\n',
      'importing  read 1000  sent 1000  imported 1000  failed 0  40/s  ETA 0s\n',
    ]);
  });

  it.each([
    [0, '0s'],
    [59.4, '59s'],
    [61, '1m01s'],
    [3600 * 2 + 65, '2h01m'],
  ])('formats %d seconds as %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});
