import { Type, type TProperties } from '@sinclair/typebox';

const field = <T extends TProperties>(properties: T) => Type.Object(properties);

// S-3.4, in the contract's order of checks.
export const CreateJwtBody = Type.Intersect([
  field({ algorithm: Type.String() }),
  field({ jwksDomain: Type.String() }),
  field({ payload: Type.Object({}, { additionalProperties: true }) }),
  field({ validity: Type.Integer() }),
  field({ useStaticSigningKey: Type.Optional(Type.Boolean()) }),
]);

export const CreateJwtResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), jwt: Type.String() }),
  Type.Object({ status: Type.Literal('UNSUPPORTED_ALGORITHM_ERROR') }),
]);

const Jwk = Type.Object({
  kty: Type.String(),
  kid: Type.String(),
  n: Type.String(),
  e: Type.String(),
  alg: Type.String(),
  use: Type.String(),
});
export const JwksDocument = Type.Object({ keys: Type.Array(Jwk) });
export const JwksWithStatus = Type.Object({ keys: Type.Array(Jwk), status: Type.Literal('OK') });
export const TextError = Type.String();
