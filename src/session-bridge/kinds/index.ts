import { auth0 } from './auth0.js';
import { clerk } from './clerk.js';
import { cognito } from './cognito.js';
import { firebase } from './firebase.js';
import { oidc } from './oidc.js';
import { okta } from './okta.js';
import { supabase } from './supabase.js';
import type { BridgeKind } from './types.js';

export const bridgeKinds = { firebase, auth0, cognito, okta, clerk, supabase, oidc } satisfies Record<string, BridgeKind>;

export type BridgeKindName = keyof typeof bridgeKinds;
export const bridgeKindNames = Object.keys(bridgeKinds) as BridgeKindName[];
