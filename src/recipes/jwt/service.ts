import { CompactSign } from 'jose';
import { signingAlgorithm } from '../../keys/key-pair.js';
import type { SigningKeys } from '../../keys/signing-keys.js';

export interface CreateJwtInput {
  algorithm: string;
  jwksDomain: string;
  payload: Record<string, unknown>;
  validitySeconds: number;
  useStaticSigningKey: boolean;
}

export type CreateJwtResult = { status: 'OK'; jwt: string } | { status: 'UNSUPPORTED_ALGORITHM_ERROR' };

const encoder = new TextEncoder();

/** The JWT recipe (S-3.4): JWTs for the app (OpenId, its own APIs), signed by the keys the JWKS lists. */
export class JwtService {
  constructor(
    private readonly keys: SigningKeys,
    private readonly clock: () => number,
  ) {}

  async createJwt(input: CreateJwtInput): Promise<CreateJwtResult> {
    if (input.algorithm.toUpperCase() !== signingAlgorithm) return { status: 'UNSUPPORTED_ALGORITHM_ERROR' };
    const key = input.useStaticSigningKey ? await this.keys.getStaticKey() : await this.keys.currentDynamicKey();
    const iat = Math.floor(this.clock() / 1000);
    // [PROPOSAL] iat and exp are always the core's; a caller's iss wins over jwksDomain.
    const claims = { iss: input.jwksDomain, ...input.payload, iat, exp: iat + input.validitySeconds };
    const jwt = await new CompactSign(encoder.encode(JSON.stringify(claims)))
      .setProtectedHeader({ alg: signingAlgorithm, typ: 'JWT', kid: key.kid })
      .sign(key.privateKey);
    return { status: 'OK', jwt };
  }
}
