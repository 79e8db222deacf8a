// Nesting deeper than this is refused before any route sees the body: serialising or walking such a value
// recursively (JSON.stringify into jsonb, the response serializer) overflows the stack and answers 500. Real
// bodies, user metadata included, nest a handful of levels.
export const maxJsonDepth = 64;

/**
 * The body field that holds a value nested deeper than `maxJsonDepth` (the body object is level 1), or undefined:
 * the top-level field, or for a list of objects (bulk import's `users`) the field of the item, `users[3].userMetadata`.
 * The walk goes no deeper than the limit, so it cannot overflow the stack, and allocates only for the answer: it runs
 * on every body, a bulk import's megabytes included.
 */
export function findTooDeepField(parsed: unknown): string | undefined {
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  if (Array.isArray(parsed)) return parsed.some((child) => nestsDeeper(child, 2)) ? '' : undefined;
  const fields = parsed as Record<string, unknown>;
  for (const field in fields) if (nestsDeeper(fields[field], 2)) return field + itemFieldPath(fields[field]);
  return undefined;
}

// `[i].name` when the too-deep value is a list whose item i is an object with the too-deep field `name`.
function itemFieldPath(value: unknown): string {
  if (!Array.isArray(value)) return '';
  const index = value.findIndex((item) => nestsDeeper(item, 3));
  const item: unknown = value[index];
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return '';
  const fields = item as Record<string, unknown>;
  for (const field in fields) if (nestsDeeper(fields[field], 4)) return `[${index}].${field}`;
  return '';
}

function nestsDeeper(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth > maxJsonDepth) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (nestsDeeper(value[i], depth + 1)) return true;
    return false;
  }
  const fields = value as Record<string, unknown>;
  for (const field in fields) if (nestsDeeper(fields[field], depth + 1)) return true;
  return false;
}
