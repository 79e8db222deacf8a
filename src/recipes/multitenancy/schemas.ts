import { Type } from '@sinclair/typebox';

const Empty = Type.Object({});
const NoProviders = Type.Object({ providers: Type.Array(Type.Never()) });
const TenantNotFound = Type.Object({ status: Type.Literal('TENANT_NOT_FOUND_ERROR') });
const Enabled = Type.Object({ enabled: Type.Boolean() });

export const TenantV2Response = Type.Union([
  Type.Object({ tenantId: Type.String(), thirdParty: NoProviders, coreConfig: Empty, status: Type.Literal('OK') }),
  TenantNotFound,
]);

export const LegacyTenantResponse = Type.Union([
  Type.Object({
    tenantId: Type.String(),
    emailPassword: Enabled,
    thirdParty: Type.Object({ enabled: Type.Boolean(), providers: Type.Array(Type.Never()) }),
    passwordless: Enabled,
    coreConfig: Empty,
    status: Type.Literal('OK'),
  }),
  TenantNotFound,
]);

export const TenantListResponse = Type.Object({
  status: Type.Literal('OK'),
  tenants: Type.Array(Type.Object({ tenantId: Type.String(), thirdParty: NoProviders, coreConfig: Empty })),
});
