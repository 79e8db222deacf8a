// Nesting deeper than this is refused before any route sees the body: serialising or walking such a value
// recursively (JSON.stringify into jsonb, the response serializer) overflows the stack and answers 500. Real
// bodies, user metadata included, nest a handful of levels.
export const maxJsonDepth = 64;

const openers = /[[{]/g;

/**
 * The top-level body field that holds a value nested deeper than `maxJsonDepth` (the body object is level 1), or
 * undefined. Iterative, so the check itself cannot overflow the stack.
 */
export function findTooDeepField(body: string, parsed: unknown): string | undefined {
  // A body with no more brackets than the limit cannot nest deeper: most bodies skip the walk.
  if ((body.match(openers)?.length ?? 0) <= maxJsonDepth) return undefined;
  const pending: [unknown, number, string][] = [[parsed, 1, '']];
  while (pending.length > 0) {
    const [value, depth, field] = pending.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > maxJsonDepth) return field;
    const children = Array.isArray(value) ? value : Object.values(value);
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    children.forEach((child, index) => pending.push([child, depth + 1, depth === 1 && keys ? keys[index] : field]));
  }
  return undefined;
}
