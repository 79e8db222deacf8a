import { Type } from '@sinclair/typebox';

export const ApiVersionQuery = Type.Object({ websiteDomain: Type.Optional(Type.String()), apiDomain: Type.Optional(Type.String()) });
export const ApiVersionResponse = Type.Object({ versions: Type.Array(Type.String()) });
