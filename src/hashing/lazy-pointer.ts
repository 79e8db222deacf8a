import { parseLazyPointer, LAZY_PREFIX, type LazyPointer } from '../lazy-migration/pointer.js';
import { scheduled, type HashFormat } from './format.js';

// Not a hash: the mark of a user imported for lazy migration (src/lazy-migration/). Sign-in sends such users to their
// old provider before any verification; should one reach a verifier all the same, it never matches.
export const lazyPointerFormat: HashFormat<LazyPointer> = {
  id: 'LAZY',
  aliases: [],
  invalidMessage: 'Password hash is in invalid Lazy format',
  needsSignerKey: false,
  pool: 'BCRYPT',
  hasPrefix: (hash) => hash.startsWith(LAZY_PREFIX),
  parse: (hash) => {
    const parsed = parseLazyPointer(hash);
    return parsed.ok ? parsed : { ok: false, reason: parsed.reason, recognised: true };
  },
  verify: async () => false,
  memoryBytes: () => 0,
  costClass: scheduled,
};

/**
 * Why a pointer may not be imported into this core: it names a source the core is not configured with, so the
 * mistake shows at import, not at the user's sign-in. One rule for every import route.
 */
export function unknownSourceOf(pointer: string, sources: { has(name: string): boolean }): string | undefined {
  const parsed = parseLazyPointer(pointer);
  return parsed.ok && !sources.has(parsed.value.source) ? `unknown source '${parsed.value.source}'` : undefined;
}
