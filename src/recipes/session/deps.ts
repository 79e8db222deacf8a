import type pg from 'pg';
import type { Config } from '../../config/config.js';
import type { SigningKeys } from '../../keys/signing-keys.js';

// What the session service and its create, verify and refresh steps are built with.
export interface SessionServiceDeps {
  pool: pg.Pool;
  config: Readonly<Config>;
  clock: () => number;
  keys: SigningKeys;
}
