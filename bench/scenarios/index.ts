import type { Scenario } from '../lib/scenario.js';
import { appScenario } from './app.js';
import { bulkImportScenario } from './bulk.js';
import { helloUnderStormScenario } from './hello-under-storm.js';
import { hostileScenario } from './hostile.js';
import { importScenario } from './import.js';
import { lazySigninScenario } from './lazy-signin.js';
import { passkeyScenario } from './passkey.js';
import { passwordlessScenario } from './passwordless.js';
import { sessionBridgeScenario } from './session-bridge.js';
import { signinScenarios } from './signin.js';
import { sessionScenario } from './session.js';
import { startupScenario } from './startup.js';

// In the order of the README table.
export const scenarios: Scenario[] = [
  importScenario,
  ...signinScenarios,
  helloUnderStormScenario,
  passwordlessScenario,
  sessionScenario,
  bulkImportScenario,
  lazySigninScenario,
  sessionBridgeScenario,
  passkeyScenario,
  startupScenario,
  hostileScenario,
  appScenario,
];
