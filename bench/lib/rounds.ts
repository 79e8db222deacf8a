import { median } from './stats.js';

export interface Rate {
  perSecond: number;
}

export interface RoundPair {
  ceiling: number;
  core: number;
  ratio: number;
}

export interface Paired<C extends Rate, T extends Rate> {
  /** The round whose rate is the median of each side (what the table shows). */
  ceiling: C;
  core: T;
  /** Median of the per-round core/ceiling ratios. */
  ratio: number;
  pairs: RoundPair[];
}

/**
 * Measures the ceiling and the core back to back, `rounds` times, swapping which goes first every round, and
 * reads the ratio as the median of the per-round ratios. Other work on the machine comes and goes over
 * seconds; a pair measured seconds apart sees about the same background load, so its ratio holds even
 * when the absolute numbers move.
 */
export async function alternate<C extends Rate, T extends Rate>(
  rounds: number,
  measureCeiling: (round: number) => Promise<C>,
  measureCore: (round: number) => Promise<T>,
  log: (message: string) => void,
): Promise<Paired<C, T>> {
  const results: Array<{ ceiling: C; core: T }> = [];
  for (let round = 1; round <= rounds; round++) {
    let ceiling: C;
    let core: T;
    if (round % 2 === 1) {
      ceiling = await measureCeiling(round);
      core = await measureCore(round);
    } else {
      core = await measureCore(round);
      ceiling = await measureCeiling(round);
    }
    log(`  round ${round}/${rounds}: ceiling ${ceiling.perSecond.toFixed(1)}/s, core ${core.perSecond.toFixed(1)}/s`);
    results.push({ ceiling, core });
  }
  const pairs = results.map(({ ceiling, core }) => ({
    ceiling: ceiling.perSecond,
    core: core.perSecond,
    ratio: ceiling.perSecond > 0 ? core.perSecond / ceiling.perSecond : 0,
  }));
  return {
    ceiling: medianBy(results.map((r) => r.ceiling)),
    core: medianBy(results.map((r) => r.core)),
    ratio: median(pairs.map((pair) => pair.ratio)),
    pairs,
  };
}

function medianBy<R extends Rate>(values: R[]): R {
  const sorted = [...values].sort((a, b) => a.perSecond - b.perSecond);
  return sorted[Math.ceil(sorted.length / 2) - 1];
}
