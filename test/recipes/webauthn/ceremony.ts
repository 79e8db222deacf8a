import type { FastifyInstance } from 'fastify';
import { call } from '../../helper.js';
import type { SoftAuthenticator } from './authenticator.js';

// Drives the core as the SDK's WebAuthn recipe does: options, then the browser's answer, then sign-up or sign-in.
export const rpId = 'example.com';
export const origin = 'https://example.com';

export function cdi(version: string) {
  return { 'cdi-version': version };
}

export async function registerOptions(app: FastifyInstance, email: string, extra: Record<string, unknown> = {}, version = '5.4') {
  const body = { email, relyingPartyId: rpId, relyingPartyName: 'Example', origin, ...extra };
  return call(app, 'POST', '/public/recipe/webauthn/options/register', { body, headers: cdi(version) });
}

export async function signInOptions(app: FastifyInstance, extra: Record<string, unknown> = {}, version = '5.4') {
  const body = { relyingPartyId: rpId, relyingPartyName: 'Example', origin, ...extra };
  return call(app, 'POST', '/public/recipe/webauthn/options/signin', { body, headers: cdi(version) });
}

export async function signUp(app: FastifyInstance, authenticator: SoftAuthenticator, email: string, version = '5.4') {
  const options = (await registerOptions(app, email, {}, version)).json;
  const credential = authenticator.register(options, origin);
  return call(app, 'POST', '/public/recipe/webauthn/signup', {
    body: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential },
    headers: cdi(version),
  });
}

export async function signIn(app: FastifyInstance, authenticator: SoftAuthenticator, version = '5.4') {
  const options = (await signInOptions(app, {}, version)).json;
  const credential = authenticator.assert(options.challenge, origin, rpId);
  return call(app, 'POST', '/public/recipe/webauthn/signin', {
    body: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential },
    headers: cdi(version),
  });
}
