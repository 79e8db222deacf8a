import fs from 'node:fs';
import path from 'node:path';
import { CliError } from '../cli-error.js';

/** A realm's files as `kc.sh export` writes them: the realm file, then the users files beside it, in order. */
export interface KeycloakExportFiles {
  realmFile: string;
  /** `<realm>-users-<n>.json`, by n (`--users different_files`, the default of `kc.sh export --dir`). */
  usersFiles: string[];
}

const REALM_FILE = /^(.+)-realm\.json$/;
// Keycloak's own administrators live in this realm: it is taken only when it is the folder's one realm.
const ADMIN_REALM = 'master';

/**
 * What `migrate keycloak <path>` reads: a realm file (with the users files `kc.sh export --dir` wrote beside it,
 * if any), or the folder itself. A folder of several realms needs `--tenant <realm>`: one realm per run, each its
 * own tenant, so that the same person in two realms stays two users.
 */
export function keycloakExportFiles(given: string, tenant: string | undefined): KeycloakExportFiles {
  if (!fs.existsSync(given)) return { realmFile: given, usersFiles: [] };
  const realmFile = fs.statSync(given).isDirectory() ? realmFileOfFolder(given, tenant) : given;
  const realm = REALM_FILE.exec(path.basename(realmFile))?.[1];
  return { realmFile, usersFiles: realm === undefined ? [] : usersFilesOf(path.dirname(realmFile), realm) };
}

function realmFileOfFolder(folder: string, tenant: string | undefined): string {
  const realms = fs
    .readdirSync(folder)
    .map((name) => REALM_FILE.exec(name)?.[1])
    .filter((realm): realm is string => realm !== undefined)
    .sort();
  const fileOf = (realm: string) => path.join(folder, `${realm}-realm.json`);
  if (realms.length === 0) throw new CliError(`${folder} holds no <realm>-realm.json: expected a folder written by kc.sh export --dir`);
  if (tenant !== undefined) {
    const named = realms.find((realm) => realm.toLowerCase() === tenant.toLowerCase());
    if (named !== undefined) return fileOf(named);
    if (realms.length === 1) return fileOf(realms[0]);
    throw new CliError(`${folder} holds no realm named ${tenant} (it holds ${realms.join(', ')}): --tenant names the realm to migrate`);
  }
  const candidates = realms.length > 1 ? realms.filter((realm) => realm !== ADMIN_REALM) : realms;
  if (candidates.length === 1) return fileOf(candidates[0]);
  throw new CliError(
    `${folder} holds the realms ${candidates.join(', ')}: migrate one realm per run with --tenant <realm> (each realm becomes its own tenant)`,
  );
}

function usersFilesOf(folder: string, realm: string): string[] {
  const pattern = new RegExp(`^${realm.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-users-(\\d+)\\.json$`);
  return fs
    .readdirSync(folder)
    .map((name) => ({ name, part: pattern.exec(name)?.[1] }))
    .filter((file): file is { name: string; part: string } => file.part !== undefined)
    .sort((a, b) => Number(a.part) - Number(b.part))
    .map((file) => path.join(folder, file.name));
}
