import { parseArgs } from 'node:util';
import { CliError } from './cli-error.js';
import { apiKeyFrom, coreUrlFrom } from './connection.js';
import { SOURCES, type SourceName } from './readers/index.js';
import { keycloakExportFiles } from './readers/keycloak-files.js';
import { SOURCE_NAME } from '../hashing/lazy-pointer.js';

export interface PasswordCheck {
  email: string;
  password: string;
}

export interface MigrateOptions {
  source: SourceName;
  file: string;
  coreUrl: string;
  apiKey?: string;
  format?: string;
  hashConfigPath?: string;
  passwordHashesPath?: string;
  dryRun: boolean;
  checks: PasswordCheck[];
  /** Given with --report; otherwise `<file>.migrate-report.json` (not written by a dry run). */
  reportPath?: string;
  batchSize: number;
  maxQueued: number;
  /** Stop once more users than this are invalid (refused by the export's checks or the core's validation). */
  maxInvalid: number;
  pollIntervalMs: number;
  waitTimeoutMs: number;
  /** Extra attempts for a request that hit a network error or a 5xx answer. */
  retries: number;
  includeDisabled: boolean;
  providerOverrides: Map<string, string>;
  restart: boolean;
  /** Password users without a hash are imported pending, to be verified by this source of the core at first sign-in. */
  lazySource?: string;
  /** The declared mapping of roles, groups and claims (docs/migration-mapping.md). */
  mappingPath?: string;
  /** clerk: the Backend API's users, joined by id with the Dashboard CSV. */
  clerkApiPath?: string;
  /** supabase: the auth.identities and auth.mfa_factors tables as CSV. */
  identitiesPath?: string;
  mfaFactorsPath?: string;
  /** supabase: auth.webauthn_credentials as CSV (passkeys). */
  webauthnCredentialsPath?: string;
  /** auth0: each user's authentication methods (passkeys), one JSON object keyed by user id. */
  authenticationMethodsPath?: string;
  /** The relying-party id the export's passkeys were made for, where the export does not say it. */
  rpId?: string;
  /** Run although some passkeys are for RP IDs the core does not list: those are left behind, marked to re-enrol. */
  leaveUnconfiguredPasskeys: boolean;
  /** auth0: the organizations, their members and connections (docs/organizations.md). */
  orgsPath?: string;
  /** firebase (Identity Platform), cognito, keycloak: the tenant every user of the export goes to. */
  tenant?: string;
  /** keycloak: the realm's users files that `kc.sh export --dir` wrote beside its realm file, read after it. */
  usersFiles?: string[];
}

export const MAX_BATCH = 10_000;
const LAZY_READERS: readonly string[] = ['firebase', 'auth0', 'cognito', 'okta', 'csv', 'ndjson'];
/** Sources whose export is one tenant of several (an Identity Platform tenant, a Cognito pool, a Keycloak realm). */
export const TENANT_SOURCES: readonly string[] = ['firebase', 'cognito', 'keycloak'];
export const PASSKEY_SOURCES: readonly string[] = ['keycloak', 'kratos', 'auth0', 'supabase', 'hanko'];

export const MIGRATE_USAGE = `Usage: identity-core migrate <source> <file> [options]
       identity-core migrate undo <report> [--dry-run]

Sources (files may be gzipped):
  firebase   auth:export output, JSON or CSV (needs --hash-config for password users)
  auth0      user export (NDJSON or CSV), joined by email with --password-hashes
  cognito    aws cognito-idp list-users output (JSON); needs --lazy-source
  okta       Okta users API answer (JSON array); needs --lazy-source
  keycloak   realm export (kc.sh export --file), JSON, or the folder of kc.sh export --dir
  clerk      Dashboard user export (CSV), joined with the Backend API's users by --clerk-api
  supabase   auth.users as CSV (psql \\copy, format csv with header), with --identities, --mfa-factors and
             --webauthn-credentials
  kratos     Ory Kratos admin API identities with their credentials (JSON array)
  hanko      Hanko admin API users (GET /users/{id} answers as one JSON array)
  csv        generic CSV with a header row
  ndjson     generic NDJSON, one user per line

Options:
  --core-url <url>              core to import into (default: env IDENTITY_CORE_URL, else http://localhost:3567)
  --api-key <key>               one of the core's api_keys (default: env IDENTITY_CORE_API_KEY)
  --hash-config <file>          firebase: the console's hash_config block, or JSON
  --password-hashes <file>      auth0: the password-hash export (NDJSON)
  --format json|csv             firebase, auth0: file format when the name does not say (auth0: .csv is CSV,
                                anything else NDJSON)
  --lazy-source <name>          import password users without a hash as pending: the core's lazy_migration
                                source <name> verifies each password at the user's first sign-in
  --mapping <file>              roles, groups and claims: which core roles they become (YAML or JSON;
                                see docs/migration-mapping.md); without it roles are reported, not carried
  --clerk-api <file>            clerk: the Backend API's users (GET /v1/users pages as one JSON array)
  --identities <file>           supabase: auth.identities as CSV
  --mfa-factors <file>          supabase: auth.mfa_factors as CSV
  --webauthn-credentials <file> supabase: auth.webauthn_credentials as CSV (passkeys)
  --authentication-methods <file>
                                auth0: each user's authentication methods (passkeys), one JSON object
                                keyed by user id (see docs/passkeys.md)
  --rp-id <domain>              keycloak, kratos, supabase, hanko, auth0: the relying-party id the export's
                                passkeys were made for, where the export does not say it
  --leave-unconfigured-passkeys run although the export has passkeys for RP IDs the core's webauthn_rp_ids
                                does not list (the run is refused otherwise): those passkeys are left
                                behind, each named in the report, and their users marked to re-enrol
  --orgs <file>                 auth0: the organizations with their members and enabled connections (one JSON
                                array; see docs/organizations.md): one tenant each, members placed in it
  --tenant <id>                 firebase (an Identity Platform tenant), cognito (a user pool), keycloak (a
                                realm): every user of the export goes to this tenant, created first; in a
                                keycloak folder of several realms, also the realm to read
  --dry-run                     ask the core what would happen; write nothing
  --check-password <email:pw>   canary: import this user first and sign in (repeatable)
  --report <file>               JSON report (default <file>.migrate-report.json)
  --batch-size <n>              users per request, at most 10000 (default 10000)
  --max-queued <n>              pause sending while the core's queue holds more (default 100000)
  --max-invalid <n>             stop once more than n users are invalid (default: never; each is reported and skipped)
  --include-disabled            also import users disabled/blocked in the source
  --map-provider <from=to>      third-party id to use for a provider (repeatable)
  --poll-interval <seconds>     how often to look at the core's queue (default 1)
  --wait-timeout <seconds>      stop waiting when the queue makes no progress this long (default 600)
  --retries <n>                 retries of a request after a network error or 5xx, with backoff (default 4)
  --restart                     start a fresh run (users already in the core are still not sent again)
  -h, --help                    this text
`;

export function parseMigrateArgs(argv: string[], env: Readonly<Record<string, string | undefined>>): MigrateOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        'core-url': { type: 'string' },
        'api-key': { type: 'string' },
        format: { type: 'string' },
        'hash-config': { type: 'string' },
        'password-hashes': { type: 'string' },
        'dry-run': { type: 'boolean' },
        'check-password': { type: 'string', multiple: true },
        report: { type: 'string' },
        'batch-size': { type: 'string' },
        'max-queued': { type: 'string' },
        'max-invalid': { type: 'string' },
        'include-disabled': { type: 'boolean' },
        'map-provider': { type: 'string', multiple: true },
        'poll-interval': { type: 'string' },
        'wait-timeout': { type: 'string' },
        retries: { type: 'string' },
        restart: { type: 'boolean' },
        'lazy-source': { type: 'string' },
        mapping: { type: 'string' },
        'clerk-api': { type: 'string' },
        identities: { type: 'string' },
        'mfa-factors': { type: 'string' },
        'webauthn-credentials': { type: 'string' },
        'authentication-methods': { type: 'string' },
        'rp-id': { type: 'string' },
        'leave-unconfigured-passkeys': { type: 'boolean' },
        orgs: { type: 'string' },
        tenant: { type: 'string' },
      },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${MIGRATE_USAGE}`);
  }
  const { values, positionals } = parsed;
  const [source, file, ...extra] = positionals;
  if (!source || !file || extra.length > 0) throw new CliError(`expected <source> and <file>\n\n${MIGRATE_USAGE}`);
  if (!(SOURCES as readonly string[]).includes(source)) throw new CliError(`unknown source "${source}": use one of ${SOURCES.join(', ')}`);
  if (values['hash-config'] !== undefined && source !== 'firebase') throw new CliError('--hash-config only applies to the firebase source');
  if (values['password-hashes'] !== undefined && source !== 'auth0')
    throw new CliError('--password-hashes only applies to the auth0 source');
  if (values.format !== undefined && source !== 'firebase' && source !== 'auth0')
    throw new CliError('--format only applies to the firebase and auth0 sources');
  if (values.format !== undefined && !['json', 'csv', ...(source === 'auth0' ? ['ndjson'] : [])].includes(values.format.toLowerCase()))
    throw new CliError(`--format takes json or csv${source === 'auth0' ? ' (or ndjson)' : ''}`);
  if (values['clerk-api'] !== undefined && source !== 'clerk') throw new CliError('--clerk-api only applies to the clerk source');
  if ((values.identities !== undefined || values['mfa-factors'] !== undefined) && source !== 'supabase')
    throw new CliError('--identities and --mfa-factors only apply to the supabase source');
  if (values['webauthn-credentials'] !== undefined && source !== 'supabase')
    throw new CliError('--webauthn-credentials only applies to the supabase source');
  if (values['authentication-methods'] !== undefined && source !== 'auth0')
    throw new CliError('--authentication-methods only applies to the auth0 source');
  const rpId = values['rp-id']?.trim().toLowerCase();
  if (rpId !== undefined && !PASSKEY_SOURCES.includes(source))
    throw new CliError(`--rp-id applies to ${PASSKEY_SOURCES.join(', ')}: the sources that give passkeys out`);
  if (rpId !== undefined && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(rpId))
    throw new CliError('--rp-id takes a domain (example.com), without a scheme, port or path');
  if (values['leave-unconfigured-passkeys'] && !PASSKEY_SOURCES.includes(source))
    throw new CliError(`--leave-unconfigured-passkeys applies to ${PASSKEY_SOURCES.join(', ')}: the sources that give passkeys out`);
  if (values.orgs !== undefined && source !== 'auth0') throw new CliError('--orgs only applies to the auth0 source');
  if (values.tenant !== undefined && !TENANT_SOURCES.includes(source))
    throw new CliError(`--tenant applies to ${TENANT_SOURCES.join(', ')}: the sources whose export is one tenant of several`);
  const lazySource = values['lazy-source'];
  if (lazySource !== undefined && !SOURCE_NAME.test(lazySource))
    throw new CliError('--lazy-source takes a source name: 1 to 32 of a-z, 0-9, _ and -');
  if (lazySource !== undefined && !LAZY_READERS.includes(source)) throw new CliError(`--lazy-source applies to ${LAZY_READERS.join(', ')}`);
  if (lazySource === undefined && (source === 'cognito' || source === 'okta')) {
    throw new CliError(`${source} exports hold no password hashes: pass --lazy-source <name>, a lazy_migration source of the core`);
  }

  const keycloak = source === 'keycloak' ? keycloakExportFiles(file, values.tenant) : undefined;

  return {
    source: source as SourceName,
    file: keycloak?.realmFile ?? file,
    ...(keycloak !== undefined && keycloak.usersFiles.length > 0 && { usersFiles: keycloak.usersFiles }),
    coreUrl: coreUrlFrom(values['core-url'], env),
    apiKey: apiKeyFrom(values['api-key'], env),
    format: values.format,
    hashConfigPath: values['hash-config'],
    passwordHashesPath: values['password-hashes'],
    dryRun: values['dry-run'] ?? false,
    checks: (values['check-password'] ?? []).map(parseCheck),
    reportPath: values.report,
    batchSize: integerOption(values['batch-size'], 'batch-size', MAX_BATCH, 1, MAX_BATCH),
    maxQueued: integerOption(values['max-queued'], 'max-queued', 100_000, 1, Number.MAX_SAFE_INTEGER),
    maxInvalid: integerOption(values['max-invalid'], 'max-invalid', Number.POSITIVE_INFINITY, 0, Number.MAX_SAFE_INTEGER),
    pollIntervalMs: secondsOption(values['poll-interval'], 'poll-interval', 1),
    waitTimeoutMs: secondsOption(values['wait-timeout'], 'wait-timeout', 600),
    retries: integerOption(values.retries, 'retries', 4, 0, 20),
    includeDisabled: values['include-disabled'] ?? false,
    providerOverrides: new Map((values['map-provider'] ?? []).map(parseMapping)),
    restart: values.restart ?? false,
    ...(lazySource !== undefined && { lazySource }),
    ...(values.mapping !== undefined && { mappingPath: values.mapping }),
    ...(values['clerk-api'] !== undefined && { clerkApiPath: values['clerk-api'] }),
    ...(values.identities !== undefined && { identitiesPath: values.identities }),
    ...(values['mfa-factors'] !== undefined && { mfaFactorsPath: values['mfa-factors'] }),
    ...(values['webauthn-credentials'] !== undefined && { webauthnCredentialsPath: values['webauthn-credentials'] }),
    ...(values['authentication-methods'] !== undefined && { authenticationMethodsPath: values['authentication-methods'] }),
    ...(rpId !== undefined && { rpId }),
    leaveUnconfiguredPasskeys: values['leave-unconfigured-passkeys'] ?? false,
    ...(values.orgs !== undefined && { orgsPath: values.orgs }),
    ...(values.tenant !== undefined && { tenant: values.tenant }),
  };
}

function parseCheck(value: string): PasswordCheck {
  const separator = value.indexOf(':');
  if (separator <= 0 || separator === value.length - 1) throw new CliError('--check-password takes <email>:<password>');
  return { email: value.slice(0, separator), password: value.slice(separator + 1) };
}

function parseMapping(value: string): [string, string] {
  const [from, to, ...rest] = value.split('=');
  if (!from || !to || rest.length > 0) throw new CliError('--map-provider takes <provider>=<thirdPartyId>, e.g. google.com=google');
  return [from, to];
}

function integerOption(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) throw new CliError(`--${name} must be an integer from ${min} to ${max}`);
  return number;
}

function secondsOption(value: string | undefined, name: string, fallback: number): number {
  const seconds = value === undefined ? fallback : Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new CliError(`--${name} must be a positive number of seconds`);
  return Math.round(seconds * 1000);
}
