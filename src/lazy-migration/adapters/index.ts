import type { SourceConfig } from '../config.js';
import type { SourceAdapter } from '../outcome.js';
import { auth0Adapter } from './auth0.js';
import { cognitoAdapter } from './cognito.js';
import { firebaseAdapter } from './firebase.js';
import { oktaAdapter } from './okta.js';
import { supabaseAdapter } from './supabase.js';
import { webhookAdapter } from './webhook.js';

export function createAdapter(source: SourceConfig, userAgent: string): SourceAdapter {
  switch (source.kind) {
    case 'webhook':
      return webhookAdapter(source, userAgent);
    case 'firebase':
      return firebaseAdapter(source);
    case 'auth0':
      return auth0Adapter(source);
    case 'cognito':
      return cognitoAdapter(source);
    case 'okta':
      return oktaAdapter(source);
    case 'supabase':
      return supabaseAdapter(source);
  }
}
