// The string forms PBKDF2 hashes are exported in. Each turns its string into the same parts (PRF, iterations,
// salt bytes, derived key); pbkdf2.ts bounds and verifies them.
import { decodePaddedCanonicalBase64, decodeUnpaddedCanonicalBase64 } from '../base64.js';

export type Pbkdf2Digest = 'sha1' | 'sha256' | 'sha512' | 'sha3-224' | 'sha3-256' | 'sha3-384' | 'sha3-512';

export interface Pbkdf2Parts {
  /** How the string was written, for messages: `passlib`, `PHC`, `Django`, … */
  grammar: string;
  digest: Pbkdf2Digest;
  iterationsText: string;
  salt: Buffer;
  key: Buffer;
}

export type GrammarResult = { ok: true; parts: Pbkdf2Parts } | { ok: false; reason: string };

const bad = (reason: string): GrammarResult => ({ ok: false, reason });

/** passlib's "adapted base64": standard alphabet with `.` for `+`, no padding; canonical. */
function decodeAb64(text: string): Buffer | undefined {
  return text.includes('+') ? undefined : decodeUnpaddedCanonicalBase64(text.replace(/\./g, '+'));
}

/** PHC as Kratos and Auth0 write it: standard base64 with or without padding; canonical either way. */
function decodeBase64EitherPadding(text: string): Buffer | undefined {
  return text.endsWith('=') ? decodePaddedCanonicalBase64(text) : decodeUnpaddedCanonicalBase64(text);
}

const PASSLIB = /^\$pbkdf2(?:-(sha256|sha512))?\$([^$]*)\$([^$]*)\$([^$]*)$/;
const LDAP = /^\{PBKDF2(?:-(SHA256|SHA512))?\}([^$]*)\$([^$]*)\$([^$]*)$/i;
const PHC = /^\$pbkdf2-([a-z0-9-]+)\$i=([^,$]*),l=([^,$]*)\$([^$]*)\$([^$]*)$/;
const DJANGO = /^pbkdf2_(sha256|sha1)\$([^$]*)\$([^$]*)\$([^$]*)$/;
const WERKZEUG = /^pbkdf2:(sha256|sha512|sha1):([^$]*)\$([^$]*)\$([^$]*)$/;
const ATLASSIAN = /^\{PKCS5S2\}(.*)$/;

const PHC_DIGESTS: readonly string[] = ['sha1', 'sha256', 'sha512', 'sha3-224', 'sha3-256', 'sha3-384', 'sha3-512'];
const DIGEST_BYTES: Readonly<Record<Pbkdf2Digest, number>> = {
  sha1: 20,
  sha256: 32,
  sha512: 64,
  'sha3-224': 28,
  'sha3-256': 32,
  'sha3-384': 48,
  'sha3-512': 64,
};

export function digestBytes(digest: Pbkdf2Digest): number {
  return DIGEST_BYTES[digest];
}

export function hasPbkdf2Prefix(hash: string): boolean {
  return /^(\$pbkdf2[$-]|pbkdf2_sha(256|1)\$|pbkdf2:|\{PBKDF2[-}]|\{PKCS5S2\})/i.test(hash);
}

export function parsePbkdf2Grammar(hash: string): GrammarResult {
  if (hash.startsWith('$pbkdf2-') && hash.includes('$i=')) return parsePhc(hash);
  const passlib = PASSLIB.exec(hash) ?? LDAP.exec(hash);
  if (passlib) {
    const [, name, iterationsText, saltText, keyText] = passlib;
    const salt = decodeAb64(saltText);
    const key = decodeAb64(keyText);
    if (!salt || !key) return bad('passlib salt and hash must be canonical unpadded base64 with . for +');
    const digest = (name?.toLowerCase() ?? 'sha1') as Pbkdf2Digest;
    return { ok: true, parts: { grammar: hash.startsWith('{') ? 'LDAP' : 'passlib', digest, iterationsText, salt, key } };
  }
  const django = DJANGO.exec(hash);
  if (django) {
    const [, digest, iterationsText, saltText, keyText] = django;
    const key = decodePaddedCanonicalBase64(keyText);
    if (!key) return bad('Django hash must be canonical padded base64');
    const salt = Buffer.from(saltText, 'utf8');
    return { ok: true, parts: { grammar: 'Django', digest: digest as Pbkdf2Digest, iterationsText, salt, key } };
  }
  const werkzeug = WERKZEUG.exec(hash);
  if (werkzeug) {
    const [, digest, iterationsText, saltText, hex] = werkzeug;
    if (!/^([0-9a-f]{2})+$/.test(hex)) return bad('Werkzeug hash must be lower-case hex');
    const parts = { grammar: 'Werkzeug', digest: digest as Pbkdf2Digest, iterationsText, salt: Buffer.from(saltText, 'utf8') };
    return { ok: true, parts: { ...parts, key: Buffer.from(hex, 'hex') } };
  }
  const atlassian = ATLASSIAN.exec(hash);
  if (atlassian) {
    const blob = decodePaddedCanonicalBase64(atlassian[1]);
    // Always 16 bytes of salt and a 32-byte PBKDF2-HMAC-SHA1 key with 10,000 iterations.
    if (!blob || blob.length !== 48) return bad('{PKCS5S2} must be padded base64 of 48 bytes (16-byte salt, 32-byte key)');
    const [salt, key] = [blob.subarray(0, 16), blob.subarray(16)];
    return { ok: true, parts: { grammar: 'Atlassian', digest: 'sha1', iterationsText: '10000', salt, key } };
  }
  return bad(
    'expected $pbkdf2-<digest>$i=<n>,l=<len>$<salt>$<hash>, $pbkdf2[-sha256|-sha512]$<n>$<salt>$<hash>, ' +
      'pbkdf2_<sha256|sha1>$<n>$<salt>$<hash>, pbkdf2:<digest>:<n>$<salt>$<hex>, {PBKDF2…} or {PKCS5S2}',
  );
}

function parsePhc(hash: string): GrammarResult {
  const match = PHC.exec(hash);
  if (!match) return bad('PHC form must be $pbkdf2-<digest>$i=<iterations>,l=<length>$<salt>$<hash>');
  const [, digest, iterationsText, lengthText, saltText, keyText] = match;
  // Kratos reads sha224/sha384 as SHA3 and everyone else as SHA-2; guessing would fail half the users.
  if (digest === 'sha224' || digest === 'sha384') {
    return bad(`$pbkdf2-${digest}$ is ambiguous (Kratos means SHA3, others SHA-2): write sha3-${digest.slice(3)} or use a SHA-2 form`);
  }
  if (!PHC_DIGESTS.includes(digest)) return bad(`digest must be one of ${PHC_DIGESTS.join(', ')}`);
  const salt = decodeBase64EitherPadding(saltText);
  const key = decodeBase64EitherPadding(keyText);
  if (!salt || !key) return bad('PHC salt and hash must be canonical base64');
  if (!/^[1-9][0-9]{0,3}$/.test(lengthText) || Number(lengthText) !== key.length) {
    return bad(`l=${lengthText} must equal the decoded hash length, ${key.length} bytes`);
  }
  return { ok: true, parts: { grammar: 'PHC', digest: digest as Pbkdf2Digest, iterationsText, salt, key } };
}
