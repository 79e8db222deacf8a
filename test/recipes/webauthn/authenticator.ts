import crypto from 'node:crypto';
import { encodeCbor } from './cbor.js';

// A software authenticator made with node:crypto, answering as a browser's navigator.credentials would: the
// registration and assertion JSON the frontend SDK posts. ES256 (P-256) or RS256 keys; `none` or `packed` self
// attestation; a signature counter that steps by `counterStep` (0 = a synced passkey, which always reports 0).

export type Algorithm = 'ES256' | 'RS256';

const flags = { up: 0x01, uv: 0x04, be: 0x08, bs: 0x10, at: 0x40 };
const coseAlg: Record<Algorithm, number> = { ES256: -7, RS256: -257 };

export interface AuthenticatorOptions {
  alg?: Algorithm;
  attestation?: 'none' | 'packed';
  counterStep?: number;
  userVerified?: boolean;
  aaguid?: string;
  /** An existing key (a passkey carried from another provider). */
  privateKey?: crypto.KeyObject;
  credentialId?: Buffer;
}

export class SoftAuthenticator {
  readonly alg: Algorithm;
  readonly privateKey: crypto.KeyObject;
  readonly publicKey: crypto.KeyObject;
  readonly credentialId: Buffer;
  counter = 0;
  userHandle: string | undefined;
  private readonly options: AuthenticatorOptions;

  constructor(options: AuthenticatorOptions = {}) {
    this.options = options;
    this.alg = options.alg ?? 'ES256';
    if (options.privateKey) {
      this.privateKey = options.privateKey;
    } else {
      const pair =
        this.alg === 'ES256'
          ? crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' })
          : crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
      this.privateKey = pair.privateKey;
    }
    this.publicKey = crypto.createPublicKey(this.privateKey);
    this.credentialId = options.credentialId ?? crypto.randomBytes(32);
  }

  get id(): string {
    return this.credentialId.toString('base64url');
  }

  /** The COSE_Key of the public key, as an authenticator reports it and providers export it. */
  coseKey(): Buffer {
    const jwk = this.publicKey.export({ format: 'jwk' });
    const b = (text: string | undefined) => Buffer.from(text!, 'base64url');
    if (this.alg === 'ES256') {
      return encodeCbor(
        new Map<number, number | Buffer>([
          [1, 2],
          [3, -7],
          [-1, 1],
          [-2, b(jwk.x)],
          [-3, b(jwk.y)],
        ]),
      );
    }
    return encodeCbor(
      new Map<number, number | Buffer>([
        [1, 3],
        [3, -257],
        [-1, b(jwk.n)],
        [-2, b(jwk.e)],
      ]),
    );
  }

  private sign(data: Buffer): Buffer {
    return crypto.sign('sha256', data, this.privateKey);
  }

  private nextCounter(): number {
    this.counter += this.options.counterStep ?? 1;
    return this.counter;
  }

  private authData(rpId: string, withCredential: boolean, counter: number): Buffer {
    const rpIdHash = crypto.createHash('sha256').update(rpId).digest();
    let flagByte = flags.up | (this.options.userVerified === false ? 0 : flags.uv);
    if (withCredential) flagByte |= flags.at;
    const counterBytes = Buffer.alloc(4);
    counterBytes.writeUInt32BE(counter);
    const parts: Buffer[] = [rpIdHash, Buffer.from([flagByte]), counterBytes];
    if (withCredential) {
      const aaguid = Buffer.from((this.options.aaguid ?? '00000000-0000-0000-0000-000000000000').replace(/-/g, ''), 'hex');
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(this.credentialId.length);
      parts.push(aaguid, idLength, this.credentialId, this.coseKey());
    }
    return Buffer.concat(parts);
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** navigator.credentials.create() for the options the core handed out. */
  register(options: { challenge: string; rp: { id: string }; user: { id: string } }, origin: string, rpId = options.rp.id) {
    this.userHandle = options.user.id;
    const clientDataJSON = this.clientData('webauthn.create', options.challenge, origin);
    const authData = this.authData(rpId, true, this.nextCounter());
    const attestation = this.options.attestation ?? 'none';
    const attStmt =
      attestation === 'none'
        ? new Map()
        : new Map<string, number | Buffer>([
            ['alg', coseAlg[this.alg]],
            ['sig', this.sign(Buffer.concat([authData, crypto.createHash('sha256').update(clientDataJSON).digest()]))],
          ]);
    const attestationObject = encodeCbor(
      new Map<string, string | Buffer | Map<string, number | Buffer>>([
        ['fmt', attestation],
        ['attStmt', attStmt],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get() for a challenge. */
  assert(challenge: string, origin: string, rpId: string, counter = this.nextCounter()) {
    const clientDataJSON = this.clientData('webauthn.get', challenge, origin);
    const authData = this.authData(rpId, false, counter);
    const signature = this.sign(Buffer.concat([authData, crypto.createHash('sha256').update(clientDataJSON).digest()]));
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        ...(this.userHandle !== undefined && { userHandle: this.userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
