import crypto from 'node:crypto';
import type { TotpSecretKey } from '../config/totp-secret-keys.js';
import { coreError } from '../errors.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SealedSecret {
  secretKey: string;
  /** The id of the key that sealed it; null for a secret stored in clear before encryption (migration 0032). */
  secretKeyId: string | null;
}

/**
 * TOTP secrets at rest: AES-256-GCM under the newest configured key (the last of `totp_secret_keys`), stored as
 * base64 of IV ‖ ciphertext ‖ tag beside the key's id, so older keys keep opening what they sealed. The user id is
 * the associated data: a sealed secret copied onto another user's row does not open.
 */
export class TotpSecretBox {
  private readonly byId: Map<string, Buffer>;
  constructor(private readonly keys: readonly TotpSecretKey[]) {
    this.byId = new Map(keys.map((key) => [key.id, key.key]));
  }

  get configured(): boolean {
    return this.keys.length > 0;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  seal(userId: string, base32Secret: string): SealedSecret {
    return this.sealFor(totpContext(userId), base32Secret);
  }

  /** The base32 secret, or undefined when its key is not configured or the stored bytes were altered. */
  open(userId: string, stored: SealedSecret): string | undefined {
    return this.openFor(totpContext(userId), stored);
  }

  /**
   * Any other secret at rest under the same keys (a tenant's third-party client secrets). `context` is the
   * associated data: it names what the value belongs to, so a sealed value moved elsewhere does not open.
   */
  sealFor(context: string, text: string): SealedSecret {
    const newest = this.keys.at(-1);
    if (newest === undefined) throw coreError('TOTP_SECRET_KEYS_MISSING');
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', newest.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([iv, cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return { secretKey: sealed.toString('base64'), secretKeyId: newest.id };
  }

  /** The text, or undefined when its key is not configured or the stored bytes were altered. */
  openFor(context: string, stored: SealedSecret): string | undefined {
    if (stored.secretKeyId === null) return stored.secretKey;
    const key = this.byId.get(stored.secretKeyId);
    if (key === undefined) return undefined;
    const bytes = Buffer.from(stored.secretKey, 'base64');
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = crypto.createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

const totpContext = (userId: string) => `totp:${userId}`;
