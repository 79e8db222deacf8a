import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

// A loopback stand-in for an old provider's key endpoint: it publishes a JWKS, signs tokens with the matching
// private keys, rotates them, goes down or hangs on demand, and counts what it is asked.

export type SigningAlg = 'RS256' | 'ES256' | 'PS256';

interface IssuerKey {
  kid: string;
  published: boolean;
  alg: SigningAlg;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export class FakeIssuer {
  /** Requests for the key set, including those answered with an error. */
  requests = 0;
  mode: 'normal' | 'down' | 'hang' = 'normal';
  url = '';
  private readonly keys: IssuerKey[] = [];
  private server!: http.Server;
  private nextKid = 1;

  static async start(alg: SigningAlg = 'RS256'): Promise<FakeIssuer> {
    const issuer = new FakeIssuer();
    await issuer.addKey(alg);
    issuer.server = http.createServer((request, response) => issuer.handle(request, response));
    await new Promise<void>((resolve) => issuer.server.listen(0, '127.0.0.1', resolve));
    issuer.url = `http://127.0.0.1:${(issuer.server.address() as AddressInfo).port}`;
    return issuer;
  }

  get jwksUrl(): string {
    return `${this.url}/keys`;
  }

  /** The kids published now. */
  get kids(): string[] {
    return this.keys.filter((key) => key.published).map((key) => key.kid);
  }

  /** Publishes a new key and returns its kid; tokens are signed with the newest key unless told otherwise. */
  async addKey(alg: SigningAlg = 'RS256'): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const kid = `key-${this.nextKid++}-${alg.toLowerCase()}`;
    this.keys.push({ kid, published: true, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } });
    return kid;
  }

  /** Stops publishing a key; it can still sign, as a leaked or retired key would. */
  removeKey(kid: string): void {
    for (const key of this.keys) if (key.kid === kid) key.published = false;
  }

  async mint(claims: JWTPayload, options: { kid?: string; header?: Record<string, unknown> } = {}): Promise<string> {
    const key = options.kid === undefined ? this.keys[this.keys.length - 1] : this.keys.find((k) => k.kid === options.kid)!;
    return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...options.header }).sign(key.privateKey);
  }

  /** A key the issuer never publishes, for forged tokens that claim a published kid. */
  static async forge(claims: JWTPayload, header: { alg: SigningAlg; kid: string }): Promise<string> {
    const { privateKey } = await generateKeyPair(header.alg);
    return new SignJWT(claims).setProtectedHeader({ ...header, typ: 'JWT' }).sign(privateKey);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    this.requests++;
    if (this.mode === 'hang') return;
    if (this.mode === 'down') {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
      return;
    }
    if (request.url !== '/keys') {
      response.writeHead(404).end();
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ keys: this.keys.filter((key) => key.published).map((key) => key.publicJwk) }));
  }
}
