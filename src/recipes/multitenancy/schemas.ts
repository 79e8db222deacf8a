import { Type } from '@sinclair/typebox';

// Any JSON object, answered as stored (additionalConfig, query params, headers).
const OpenObject = Type.Object({}, { additionalProperties: true });
const Text = Type.Optional(Type.String());
const UserInfoFields = Type.Object({ userId: Text, email: Text, emailVerified: Text });

const Client = Type.Object({
  clientType: Text,
  clientId: Type.String(),
  clientSecret: Text,
  scope: Type.Optional(Type.Array(Type.String())),
  forcePKCE: Type.Optional(Type.Boolean()),
  additionalConfig: Type.Optional(OpenObject),
});

const Provider = Type.Object({
  thirdPartyId: Type.String(),
  name: Text,
  clients: Type.Array(Client),
  authorizationEndpoint: Text,
  authorizationEndpointQueryParams: Type.Optional(OpenObject),
  tokenEndpoint: Text,
  tokenEndpointBodyParams: Type.Optional(OpenObject),
  userInfoEndpoint: Text,
  userInfoEndpointQueryParams: Type.Optional(OpenObject),
  userInfoEndpointHeaders: Type.Optional(OpenObject),
  jwksURI: Text,
  oidcDiscoveryEndpoint: Text,
  requireEmail: Type.Optional(Type.Boolean()),
  userInfoMap: Type.Object({ fromIdTokenPayload: UserInfoFields, fromUserInfoAPI: UserInfoFields }),
});

const tenantFields = {
  tenantId: Type.String(),
  thirdParty: Type.Object({ providers: Type.Array(Provider) }),
  firstFactors: Type.Optional(Type.Array(Type.String())),
  requiredSecondaryFactors: Type.Optional(Type.Array(Type.String())),
  coreConfig: Type.Record(Type.String(), Type.Number()),
};

const TenantNotFound = Type.Object({ status: Type.Literal('TENANT_NOT_FOUND_ERROR') });
const Enabled = Type.Object({ enabled: Type.Boolean() });
export const TextError = Type.String();
/** Bodies are read field by field (tenant-input.ts, provider-config.ts), so each fault names its field. */
export const AnyBody = Type.Record(Type.String(), Type.Unknown());

export const TenantV2Response = Type.Union([Type.Object({ ...tenantFields, status: Type.Literal('OK') }), TenantNotFound]);

export const LegacyTenantResponse = Type.Union([
  Type.Object({
    tenantId: Type.String(),
    emailPassword: Enabled,
    thirdParty: Type.Object({ enabled: Type.Boolean(), providers: Type.Array(Provider) }),
    passwordless: Enabled,
    firstFactors: Type.Optional(Type.Array(Type.String())),
    requiredSecondaryFactors: Type.Optional(Type.Array(Type.String())),
    coreConfig: Type.Record(Type.String(), Type.Number()),
    status: Type.Literal('OK'),
  }),
  TenantNotFound,
]);

export const TenantListResponse = Type.Object({ status: Type.Literal('OK'), tenants: Type.Array(Type.Object(tenantFields)) });
export const CreatedResponse = Type.Object({ status: Type.Literal('OK'), createdNew: Type.Boolean() });
export const RemoveTenantResponse = Type.Object({ status: Type.Literal('OK'), didExist: Type.Boolean() });
export const RemoveProviderResponse = Type.Object({ status: Type.Literal('OK'), didConfigExist: Type.Boolean() });
