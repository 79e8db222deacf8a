import { hash } from 'node:crypto';
import { equalInConstantTime } from './constant-time.js';
import { LEGACY_PASSWORD_MAX_BYTES, legacyPasswordBytes } from './legacy-password.js';
import { decodePaddedCanonicalBase64 } from '../base64.js';
import { fail, type HashFormat, type ParseResult } from './format.js';

/** One digest of a template in which `{SALT}` and `{PASSWORD}` are replaced by the salt and the UTF-8 password. */
export interface SaltedDigestHash {
  algorithm: SaltedDigestAlgorithm;
  /** Literal byte runs and placeholders, in order. */
  template: ReadonlyArray<Buffer | 'SALT' | 'PASSWORD'>;
  salt: Buffer;
  digest: Buffer;
}

type SaltedDigestAlgorithm = 'md5' | 'sha1' | 'sha256' | 'sha512';

const DIGEST_SIZES: Readonly<Record<SaltedDigestAlgorithm, number>> = { md5: 16, sha1: 20, sha256: 32, sha512: 64 };
export const SALTED_DIGEST_LIMITS = { maxTemplateCharacters: 256, maxSaltBytes: 1024 } as const;

// Kratos' template form, its unsalted `$md5$`, and Django's legacy `md5$salt$hex` / `sha1$salt$hex`.
const TEMPLATE_FORM = /^\$(md5|sha1|sha256|sha512)\$pf=([^$]*)\$([^$]*)\$([^$]*)$/;
const UNSALTED_MD5 = /^\$md5\$([^$]*)$/;
const DJANGO_FORM = /^(md5|sha1)\$([^$]*)\$([^$]*)$/;
const PREFIX = /^(\$(md5|sha1|sha256|sha512)\$|md5\$|sha1\$)/;

export function hasSaltedDigestPrefix(hash: string): boolean {
  return PREFIX.test(hash);
}

export function parseSaltedDigest(hash: string): ParseResult<SaltedDigestHash> {
  const template = TEMPLATE_FORM.exec(hash);
  if (template) return parseTemplateForm(template[1] as SaltedDigestAlgorithm, template[2], template[3], template[4]);
  const unsalted = UNSALTED_MD5.exec(hash);
  if (unsalted)
    return withDigest('md5', ['PASSWORD'], Buffer.alloc(0), decodePaddedCanonicalBase64(unsalted[1]), '$md5$ digest', 'padded base64');
  const django = DJANGO_FORM.exec(hash);
  if (django) {
    const algorithm = django[1] as SaltedDigestAlgorithm;
    const hex = /^[0-9a-f]*$/.test(django[3]) && django[3].length % 2 === 0 ? Buffer.from(django[3], 'hex') : undefined;
    return withDigest(algorithm, ['SALT', 'PASSWORD'], Buffer.from(django[2], 'utf8'), hex, `${algorithm}$ digest`, 'lower-case hex');
  }
  return fail(
    'salted digest must be $<md5|sha1|sha256|sha512>$pf=<template>$<salt>$<digest>, $md5$<digest>, md5$<salt>$<hex> or sha1$<salt>$<hex>',
  );
}

export async function verifySaltedDigest(password: string, parsed: SaltedDigestHash): Promise<boolean> {
  return verifySaltedDigestNow(password, parsed);
}

export function verifySaltedDigestNow(password: string, parsed: SaltedDigestHash): boolean {
  const bytes = legacyPasswordBytes(password);
  if (!bytes) return false;
  const input = parsed.template.map((part) => (part === 'SALT' ? parsed.salt : part === 'PASSWORD' ? bytes : part));
  return equalInConstantTime(hash(parsed.algorithm, Buffer.concat(input), 'buffer'), parsed.digest);
}

function parseTemplateForm(
  algorithm: SaltedDigestAlgorithm,
  template: string,
  salt: string,
  digest: string,
): ParseResult<SaltedDigestHash> {
  const name = `$${algorithm}$pf=`;
  const templateBytes = decodePaddedCanonicalBase64(template);
  if (!templateBytes) return fail(`${name} template must be padded base64`);
  const text = templateBytes.toString('latin1');
  const { maxTemplateCharacters, maxSaltBytes } = SALTED_DIGEST_LIMITS;
  if (text.length > maxTemplateCharacters) {
    return fail(`${name} template must be at most ${maxTemplateCharacters} characters, got ${text.length}`);
  }
  if (!text.includes('{PASSWORD}')) return fail(`${name} template must contain {PASSWORD}`);
  const saltBytes = decodePaddedCanonicalBase64(salt);
  if (!saltBytes) return fail(`${name} salt must be padded base64`);
  if (saltBytes.length > maxSaltBytes) return fail(`${name} salt must be at most ${maxSaltBytes} bytes, got ${saltBytes.length}`);
  return withDigest(algorithm, splitTemplate(text), saltBytes, decodePaddedCanonicalBase64(digest), `${name} digest`, 'padded base64');
}

function withDigest(
  algorithm: SaltedDigestAlgorithm,
  template: SaltedDigestHash['template'],
  salt: Buffer,
  digest: Buffer | undefined,
  name: string,
  encoding: string,
): ParseResult<SaltedDigestHash> {
  if (!digest) return fail(`${name} must be ${encoding}`);
  const size = DIGEST_SIZES[algorithm];
  if (digest.length !== size) return fail(`${name} must be ${size} bytes for ${algorithm}, got ${digest.length}`);
  return { ok: true, value: { algorithm, template, salt, digest } };
}

/** The size of the digest input with the longest password that is ever hashed. */
function filledTemplateBytes(parsed: SaltedDigestHash): number {
  const sizes = parsed.template.map((part) =>
    part === 'SALT' ? parsed.salt.length : part === 'PASSWORD' ? LEGACY_PASSWORD_MAX_BYTES : part.length,
  );
  return sizes.reduce((total, size) => total + size, 0);
}

function splitTemplate(text: string): SaltedDigestHash['template'] {
  return text
    .split(/(\{SALT\}|\{PASSWORD\})/)
    .filter((part) => part !== '')
    .map((part) => (part === '{SALT}' ? 'SALT' : part === '{PASSWORD}' ? 'PASSWORD' : Buffer.from(part, 'latin1')));
}

export const saltedDigestFormat: HashFormat<SaltedDigestHash> = {
  id: 'SALTED_DIGEST',
  aliases: [],
  invalidMessage: 'Password hash is in invalid salted digest format',
  needsSignerKey: false,
  pool: 'BCRYPT',
  hasPrefix: hasSaltedDigestPrefix,
  parse: parseSaltedDigest,
  verify: verifySaltedDigest,
  memoryBytes: filledTemplateBytes,
  // One digest of at most the template's 256 characters, a 1024-byte salt and a 1024-byte password.
  costClass: () => 'INSTANT',
  verifyNow: verifySaltedDigestNow,
  isWeak: () => true,
};
