// Java's String.trim: strips only characters <= U+0020 (JS trim also strips NBSP, U+FEFF and line separators).
export function javaTrim(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) <= 0x20) start++;
  while (end > start && value.charCodeAt(end - 1) <= 0x20) end--;
  return value.slice(start, end);
}
