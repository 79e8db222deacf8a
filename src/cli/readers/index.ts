import fs from 'node:fs';
import type { SourceRecord } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { readAuth0 } from './auth0.js';
import { auth0Format, readAuth0Csv } from './auth0-csv.js';
import { readCognito } from './cognito.js';
import { readOkta } from './okta.js';
import { Auth0PasswordHashes } from './auth0-hashes.js';
import { FileSource } from './file-source.js';
import { firebaseFormat, readFirebase } from './firebase.js';
import { firstRecordWins } from './first-record-wins.js';
import { readGenericCsv, readGenericNdjson } from './generic.js';
import type { HashConfig } from './hash-config.js';
import type { ProviderOverrides } from './provider-names.js';
import type { CarryContext } from './carry.js';
import { readClerk, type ClerkApiUsers } from './clerk.js';
import { readKeycloak } from './keycloak.js';
import { readSupabase, type SupabaseTables } from './supabase.js';
import { readKratos } from './kratos.js';
import { readHanko } from './hanko.js';
import type { Auth0AuthenticationMethods } from './auth0-passkeys.js';

export const SOURCES = [
  'firebase',
  'auth0',
  'cognito',
  'okta',
  'keycloak',
  'clerk',
  'supabase',
  'kratos',
  'hanko',
  'csv',
  'ndjson',
] as const;
export type SourceName = (typeof SOURCES)[number];

export interface ReaderOptions {
  format?: string;
  hashConfig?: HashConfig;
  /** Loaded once per run and shared by every pass over the export. */
  auth0Hashes?: Auth0PasswordHashes;
  includeDisabled: boolean;
  providerOverrides: ProviderOverrides;
  /** Told about what the reader ignores (unknown columns); may be called on every pass. */
  warn?: (message: string) => void;
  lazySource?: string;
  /** The mapping, the source's name and the run's time, for roles, second factors and re-enrolment marks. */
  carry?: CarryContext;
  /** clerk: the Backend API's users (--clerk-api). */
  clerkApi?: ClerkApiUsers;
  /** supabase: auth.identities and auth.mfa_factors (--identities, --mfa-factors). */
  supabaseTables?: SupabaseTables;
  /** auth0: each user's authentication methods, for passkeys (--authentication-methods). */
  auth0AuthenticationMethods?: Auth0AuthenticationMethods;
  /** keycloak: the users files read after the realm file (`kc.sh export --dir`). */
  usersFiles?: string[];
  /** Stops reading at once when the run is interrupted. */
  signal?: AbortSignal;
}

export interface OpenedSource {
  records: AsyncIterable<SourceRecord>;
  totalBytes: number;
  bytesRead(): number;
}

/** Opens one pass over the export; each call reads the file again from the start. */
export function openSource(source: SourceName, file: string, options: ReaderOptions): OpenedSource {
  const files = [file, ...(options.usersFiles ?? [])].map((path) => {
    try {
      return new FileSource(path, options.signal);
    } catch {
      throw new CliError(`cannot read ${path}`);
    }
  });
  return {
    records: firstRecordWins(recordsOf(source, files, options)),
    totalBytes: files.reduce((sum, each) => sum + each.totalBytes, 0),
    bytesRead: () => files.reduce((sum, each) => sum + each.bytesRead(), 0),
  };
}

function recordsOf(source: SourceName, [file, ...usersFiles]: FileSource[], options: ReaderOptions): AsyncGenerator<SourceRecord> {
  const common = {
    includeDisabled: options.includeDisabled,
    providerOverrides: options.providerOverrides,
    lazySource: options.lazySource,
    carry: options.carry,
  };
  switch (source) {
    case 'firebase':
      return readFirebase(file, firebaseFormat(file.path, options.format), { ...common, hashConfig: options.hashConfig });
    case 'auth0':
      return auth0Format(file.path, options.format) === 'csv'
        ? readAuth0Csv(file, { ...common, hashes: options.auth0Hashes, authenticationMethods: options.auth0AuthenticationMethods })
        : readAuth0(file, { ...common, hashes: options.auth0Hashes, authenticationMethods: options.auth0AuthenticationMethods });
    case 'cognito':
      return readCognito(file, { includeDisabled: options.includeDisabled, lazySource: options.lazySource ?? '', carry: options.carry });
    case 'okta':
      return readOkta(file, { includeDisabled: options.includeDisabled, lazySource: options.lazySource ?? '', carry: options.carry });
    case 'keycloak':
      return readKeycloak([file, ...usersFiles], common);
    case 'clerk':
      return readClerk(file, { ...common, api: options.clerkApi });
    case 'supabase':
      return readSupabase(file, { ...common, tables: options.supabaseTables });
    case 'kratos':
      return readKratos(file, common);
    case 'hanko':
      return readHanko(file, common);
    case 'csv':
      return readGenericCsv(file, options.warn ?? (() => undefined), options.lazySource);
    case 'ndjson':
      return readGenericNdjson(file, options.warn ?? (() => undefined), options.lazySource, options.carry);
  }
}

export async function loadAuth0Hashes(file: string): Promise<Auth0PasswordHashes> {
  if (!fs.existsSync(file)) throw new CliError(`cannot read ${file}`);
  return Auth0PasswordHashes.load(file);
}
