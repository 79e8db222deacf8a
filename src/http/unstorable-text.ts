// PostgreSQL cannot hold every string JSON can carry: text and jsonb refuse U+0000, and jsonb refuses an unpaired
// surrogate (SQLSTATE 22021 / 22P02 / 22P05). Such a value can neither be stored nor match anything stored, and
// handing it to the database fails the whole request, so inputs are checked for them before they reach a route.

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// Text with no surrogate at all (nearly all of it) is told by one character class, without the lookarounds.
const surrogate = /[\uD800-\uDFFF]/;

export const isUnstorable = (text: string): boolean => text.includes('\u0000') || (surrogate.test(text) && loneSurrogate.test(text));

// In JSON text both can only arrive as \u escapes (invalid UTF-8 bytes decode to U+FFFD), so most bodies skip the walk.
export const mayHoldUnstorable = (json: string): boolean => /\\u(0000|d[89a-f])/i.test(json);

// The name of the body field whose key or string value is unstorable (array items are reported by the array's
// name, as validation errors are), or undefined. Iterative, so a deeply nested body cannot overflow the stack.
export function findUnstorableField(body: unknown): string | undefined {
  const pending: [unknown, string][] = [[body, '']];
  while (pending.length > 0) {
    const [value, name] = pending.pop()!;
    if (typeof value === 'string') {
      if (isUnstorable(value)) return name;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push([item, name]);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (isUnstorable(key)) return key;
        pending.push([child, key]);
      }
    }
  }
  return undefined;
}

// Routes that check each user of their body themselves (bulk-import/validate/storable-text.ts): one user's bad value
// is refused as that user's error, and the other users of the batch are imported.
const checkedPerUser = new Set(['POST /bulk-import/users', 'POST /bulk-import/import']);

export const checksTextPerUser = (method: string, routeUrl: string | undefined): boolean =>
  routeUrl !== undefined && checkedPerUser.has(`${method} ${routeUrl}`);
