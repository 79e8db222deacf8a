// Epoch numbers below this are seconds: as milliseconds they would fall before March 1973, as seconds
// they reach past the year 5000. At and above the upper bound they are neither (microseconds, say).
const SECONDS_BELOW = 1e11;
const MILLISECONDS_BELOW = 1e14;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

export type TimeReading = { ms?: number } | { problem: string };

/**
 * Milliseconds since the epoch from epoch seconds or milliseconds (told apart by size) or an ISO 8601 date.
 * Anything else is refused rather than guessed: `07/08/2019` is July or August depending on who wrote it.
 */
export function readStrictTime(field: string, value: unknown): TimeReading {
  if (value === undefined || value === null || value === '') return {};
  const text = String(value).trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) {
    const number = Number(text);
    if (number < SECONDS_BELOW) return { ms: Math.round(number * 1000) };
    if (number < MILLISECONDS_BELOW) return { ms: Math.round(number) };
    return { problem: `${field} ${text} is too large for epoch seconds or milliseconds (microseconds?)` };
  }
  if (/^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}/.test(text)) {
    return { problem: `${field} ${text} is ambiguous (day and month order): use ISO 8601 (YYYY-MM-DD) or epoch milliseconds` };
  }
  const ms = ISO_8601.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) return { problem: `${field} ${text} is not a time: use ISO 8601 (YYYY-MM-DD) or epoch milliseconds` };
  return { ms };
}
