// A user imported for lazy migration stores a pointer in place of a password hash:
//   $lazy$<source>$<legacy login, base64url>$<legacy user id, base64url>
// The pointer names a configured source and never carries a URL or a credential: where a password is sent is decided
// by the server's configuration alone, so imported data cannot point sign-ins at another host.

import { decodeUrlSafeBase64 } from '../base64.js';
import { scheduled, type HashFormat } from './format.js';

export interface LazyPointer {
  source: string;
  /** What the old provider expects as user name. Imports fill it with the imported email when the export gave none. */
  legacyLogin?: string;
  /** The user's id at the old provider; when set, a provider answer naming another id is refused. */
  legacyUserId?: string;
}

export const LAZY_PREFIX = '$lazy$';
export const SOURCE_NAME = /^[a-z0-9_-]{1,32}$/;
// An email of 256 characters, each up to 4 bytes of UTF-8, fits.
const MAX_PART_BYTES = 1024;

export type PointerParse = { ok: true; value: LazyPointer } | { ok: false; reason: string };

export function isLazyPointer(stored: string): boolean {
  return stored.startsWith(LAZY_PREFIX);
}

export function parseLazyPointer(text: string): PointerParse {
  if (!isLazyPointer(text)) return { ok: false, reason: 'expected $lazy$<source>$<login, base64url>$<user id, base64url>' };
  const parts = text.slice(LAZY_PREFIX.length).split('$');
  if (parts.length < 1 || parts.length > 3) return { ok: false, reason: 'expected $lazy$<source>$<login, base64url>$<user id, base64url>' };
  const [source, loginText = '', idText = ''] = parts;
  if (!SOURCE_NAME.test(source)) return { ok: false, reason: 'source must be 1 to 32 characters of a-z, 0-9, _ and -' };
  const login = decodePart(loginText, 'login');
  if (!login.ok) return login;
  const id = decodePart(idText, 'user id');
  if (!id.ok) return id;
  return { ok: true, value: { source, legacyLogin: login.value || undefined, legacyUserId: id.value || undefined } };
}

export function formatLazyPointer(pointer: LazyPointer): string {
  const encode = (value: string | undefined) => Buffer.from(value ?? '', 'utf8').toString('base64url');
  return `${LAZY_PREFIX}${pointer.source}$${encode(pointer.legacyLogin)}$${encode(pointer.legacyUserId)}`;
}

/**
 * The pointer with its login fixed to the email imported with it when it names none. The old provider is then always
 * asked about the address the user had there: a later email change here must neither strand the user nor send their
 * new address, which may be another person's account at the old provider, with the password typed.
 */
export function pinLegacyLogin(pointer: string, importedEmail: string): string {
  const parsed = parseLazyPointer(pointer);
  if (!parsed.ok || parsed.value.legacyLogin !== undefined) return pointer;
  return formatLazyPointer({ ...parsed.value, legacyLogin: importedEmail });
}

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

function decodePart(text: string, name: string): { ok: true; value: string } | { ok: false; reason: string } {
  const bytes = text.includes('=') ? undefined : decodeUrlSafeBase64(text);
  if (bytes === undefined) return { ok: false, reason: `${name} must be unpadded base64url` };
  if (bytes.toString('base64url') !== text) return { ok: false, reason: `${name} must be canonical base64url` };
  if (bytes.length > MAX_PART_BYTES) return { ok: false, reason: `${name} must be at most ${MAX_PART_BYTES} bytes` };
  const value = bytes.toString('utf8');
  if (Buffer.from(value, 'utf8').compare(bytes) !== 0) return { ok: false, reason: `${name} must be UTF-8` };
  return { ok: true, value };
}
