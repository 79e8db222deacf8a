import { coreError, invalidField } from '../../errors.js';

type Json = Record<string, unknown>;

export interface ProviderClient {
  clientType?: string;
  clientId: string;
  clientSecret?: string;
  scope?: string[];
  forcePKCE?: boolean;
  additionalConfig?: Json;
}

/** A third-party provider as stored and answered (contract-multitenancy T-1.3). */
export interface Provider {
  thirdPartyId: string;
  name?: string;
  clients: ProviderClient[];
  authorizationEndpoint?: string;
  authorizationEndpointQueryParams?: Json;
  tokenEndpoint?: string;
  tokenEndpointBodyParams?: Json;
  userInfoEndpoint?: string;
  userInfoEndpointQueryParams?: Json;
  userInfoEndpointHeaders?: Json;
  jwksURI?: string;
  oidcDiscoveryEndpoint?: string;
  requireEmail?: boolean;
  userInfoMap: { fromIdTokenPayload: UserInfoFields; fromUserInfoAPI: UserInfoFields };
}

type UserInfoFields = { userId?: string; email?: string; emailVerified?: string };

// Column limits of the reference's storage, answered here as 400s naming the field.
const MAX_THIRD_PARTY_ID = 28;
const MAX_NAME = 64;
const MAX_CLIENT_TYPE = 64;
const MAX_CLIENT_ID = 256;
const MAX_SCOPE = 128;
const MAX_USER_INFO_FIELD = 64;

const urlFields = ['authorizationEndpoint', 'tokenEndpoint', 'userInfoEndpoint', 'jwksURI', 'oidcDiscoveryEndpoint'] as const;
const mapFields = [
  'authorizationEndpointQueryParams',
  'tokenEndpointBodyParams',
  'userInfoEndpointQueryParams',
  'userInfoEndpointHeaders',
] as const;
const userInfoFields = ['userId', 'email', 'emailVerified'] as const;

const invalid = (reason: string) => coreError('INVALID_THIRD_PARTY_CONFIG', reason);
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The `config` of PUT /<t>/recipe/multitenancy/config/thirdparty, read into a provider: wrong types and over-long
 * values are always refused; the reference's provider checks (duplicate client types, a client id, Apple's keys …)
 * only without `skipValidation`.
 */
export function parseProvider(config: unknown, skipValidation: boolean): Provider {
  if (!isObject(config)) throw invalidField('config');
  if (typeof config.thirdPartyId !== 'string') throw invalidField('thirdPartyId');
  const thirdPartyId = config.thirdPartyId.trim();
  if (thirdPartyId === '') throw invalid('thirdPartyId cannot be null or empty');
  if (thirdPartyId.length > MAX_THIRD_PARTY_ID) throw invalid(`thirdPartyId is too long. Max length is ${MAX_THIRD_PARTY_ID}.`);
  const provider: Provider = { thirdPartyId, clients: [], userInfoMap: { fromIdTokenPayload: {}, fromUserInfoAPI: {} } };

  const name = optionalString(config, 'name', 'name', MAX_NAME);
  if (name !== undefined) provider.name = name;
  for (const field of urlFields) {
    const value = optionalString(config, field, field);
    if (value !== undefined) provider[field] = value;
  }
  for (const field of mapFields) {
    const value = config[field];
    if (value === undefined || value === null) continue;
    if (!isObject(value)) throw invalid(`${field} must be an object`);
    provider[field] = value;
  }
  if (config.requireEmail !== undefined && config.requireEmail !== null) {
    if (typeof config.requireEmail !== 'boolean') throw invalid('requireEmail must be a boolean');
    provider.requireEmail = config.requireEmail;
  }
  provider.userInfoMap = parseUserInfoMap(config.userInfoMap);

  const clients = config.clients ?? [];
  if (!Array.isArray(clients)) throw invalid('clients must be an array');
  provider.clients = clients.map((client, index) => parseClient(client, `clients[${index}]`, skipValidation));
  if (!skipValidation) checkProvider(provider);
  return provider;
}

function optionalString(source: Json, key: string, path: string, max?: number): string | undefined {
  const value = source[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${path} must be a string`);
  if (max !== undefined && value.length > max) throw invalid(`${path} is too long. Max length is ${max}.`);
  return value;
}

function parseUserInfoMap(value: unknown): Provider['userInfoMap'] {
  const map: Provider['userInfoMap'] = { fromIdTokenPayload: {}, fromUserInfoAPI: {} };
  if (value === undefined || value === null) return map;
  if (!isObject(value)) throw invalid('userInfoMap must be an object');
  for (const half of ['fromIdTokenPayload', 'fromUserInfoAPI'] as const) {
    const fields = value[half];
    if (fields === undefined || fields === null) continue;
    if (!isObject(fields)) throw invalid(`userInfoMap.${half} must be an object`);
    for (const field of userInfoFields) {
      const read = optionalString(fields, field, `userInfoMap.${half}.${field}`, MAX_USER_INFO_FIELD);
      if (read !== undefined) map[half][field] = read;
    }
  }
  return map;
}

function parseClient(value: unknown, path: string, skipValidation: boolean): ProviderClient {
  if (!isObject(value)) throw invalid(`${path} must be an object`);
  if (value.clientId === undefined || value.clientId === null) {
    if (!skipValidation) throw invalid('clientId cannot be null');
  } else if (typeof value.clientId !== 'string') throw invalid(`${path}.clientId must be a string`);
  const clientId = (value.clientId as string | undefined | null) ?? '';
  if (clientId.length > MAX_CLIENT_ID) throw invalid(`${path}.clientId is too long. Max length is ${MAX_CLIENT_ID}.`);
  const client: ProviderClient = { clientId };
  const clientType = optionalString(value, 'clientType', `${path}.clientType`, MAX_CLIENT_TYPE);
  if (clientType !== undefined) client.clientType = clientType;
  const clientSecret = optionalString(value, 'clientSecret', `${path}.clientSecret`);
  if (clientSecret !== undefined) client.clientSecret = clientSecret;
  if (value.scope !== undefined && value.scope !== null) {
    if (!Array.isArray(value.scope)) throw invalid(`${path}.scope must be an array`);
    if (value.scope.includes(null)) {
      if (!skipValidation) throw invalid('scope array cannot contain a null');
    }
    const scope = value.scope.filter((item) => item !== null);
    for (const item of scope) {
      if (typeof item !== 'string') throw invalid(`${path}.scope must hold strings`);
      if (item.length > MAX_SCOPE) throw invalid(`${path}.scope is too long. Max length is ${MAX_SCOPE}.`);
    }
    client.scope = scope as string[];
  }
  if (value.forcePKCE !== undefined && value.forcePKCE !== null) {
    if (typeof value.forcePKCE !== 'boolean') throw invalid(`${path}.forcePKCE must be a boolean`);
    client.forcePKCE = value.forcePKCE;
  }
  if (value.additionalConfig !== undefined && value.additionalConfig !== null) {
    if (!isObject(value.additionalConfig)) throw invalid(`${path}.additionalConfig must be an object`);
    client.additionalConfig = value.additionalConfig;
  }
  return client;
}

// Providers whose sign-in cannot work without these additionalConfig values (the reference's checks and texts).
const requiredAdditional: [prefix: string, keys: string[], message: string][] = [
  [
    'active-directory',
    ['directoryId'],
    'a non empty string value must be specified for directoryId in the additionalConfig for Active Directory provider',
  ],
  [
    'apple',
    ['keyId', 'teamId', 'privateKey'],
    'a non empty string value must be specified for keyId, teamId and privateKey in the additionalConfig for Apple provider',
  ],
  ['okta', ['oktaDomain'], 'a non empty string value must be specified for oktaDomain in the additionalConfig for Okta provider'],
  ['boxy-saml', ['boxyURL'], 'a non empty string value must be specified for boxyURL in the additionalConfig for Boxy SAML provider'],
];

function checkProvider(provider: Provider): void {
  const clientTypes = new Set<string | undefined>();
  for (const client of provider.clients) {
    if (clientTypes.has(client.clientType)) throw invalid('Duplicate clientType was specified in the clients list.');
    clientTypes.add(client.clientType);
    const rule = requiredAdditional.find(([prefix]) => provider.thirdPartyId.startsWith(prefix));
    if (rule && !rule[1].every((key) => nonEmptyString(client.additionalConfig?.[key]))) throw invalid(rule[2]);
    const hd = client.additionalConfig?.hd;
    if (provider.thirdPartyId.startsWith('google-workspaces') && hd !== undefined && !nonEmptyString(hd)) {
      throw invalid('hd in additionalConfig must be a non empty string value');
    }
  }
}

const nonEmptyString = (value: unknown) => typeof value === 'string' && value !== '';
