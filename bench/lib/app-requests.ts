import type { Request } from 'autocannon';
import type { Credential } from './credentials.js';

/** Which app a request goes to: `sdk` (supertokens-node + the core) or `library` (better-auth in-process). */
export type AppKind = 'sdk' | 'library';

/** A signed-in session as the load generator holds it: what it sends on a protected request and on a refresh. */
export interface HeldSession {
  /** sdk: the access token (Authorization: Bearer); library: the session cookie. */
  access: string;
  /** sdk: the refresh token, replaced by every refresh; library: the session cookie again. */
  refresh: string;
}

// The SDK's header mode: tokens travel in headers, not cookies, which a load generator can carry.
const sdkHeaders = { 'content-type': 'application/json', 'st-auth-mode': 'header' };

// better-auth in production refuses a sign-in without an Origin header (a browser always sends one); the app's own.
const libraryHeaders = (url: string) => ({ 'content-type': 'application/json', origin: url });

export const signinPaths: Record<AppKind, string> = { sdk: '/auth/signin', library: '/api/auth/sign-in/email' };

function signinBody(kind: AppKind, { email, password }: Credential): string {
  return kind === 'sdk'
    ? JSON.stringify({
        formFields: [
          { id: 'email', value: email },
          { id: 'password', value: password },
        ],
      })
    : JSON.stringify({ email, password });
}

/** A 2xx whose body is not a session counts as a failure. */
export const signinAnswered: Record<AppKind, (body: string) => boolean> = {
  sdk: (body) => body.includes('"status":"OK"'),
  library: (body) => body.includes('"token":"'),
};

/** Sign-ins with correct passwords, every account in turn. */
export function signinRequests(kind: AppKind, url: string, credentials: Credential[]): Request[] {
  let counter = 0;
  return [
    {
      method: 'POST',
      path: signinPaths[kind],
      headers: kind === 'sdk' ? sdkHeaders : libraryHeaders(url),
      setupRequest: (request) => ({ ...request, body: signinBody(kind, credentials[counter++ % credentials.length]) }),
    },
  ];
}

/** One sign-in outside the load, returning the session the app handed out. */
export async function signIn(kind: AppKind, url: string, credential: Credential): Promise<HeldSession> {
  const response = await fetch(`${url}${signinPaths[kind]}`, {
    method: 'POST',
    headers: kind === 'sdk' ? sdkHeaders : libraryHeaders(url),
    body: signinBody(kind, credential),
  });
  const body = await response.text();
  if (!response.ok || !signinAnswered[kind](body)) throw new Error(`${kind} sign-in answered ${response.status} ${body.slice(0, 200)}`);
  if (kind === 'sdk') {
    const access = response.headers.get('st-access-token');
    const refresh = response.headers.get('st-refresh-token');
    if (!access || !refresh) throw new Error('the SDK app answered a sign-in without st-access-token / st-refresh-token');
    return { access, refresh };
  }
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('better-auth.session_token='));
  if (!cookie) throw new Error('better-auth answered a sign-in without its session cookie');
  const value = cookie.slice(0, cookie.indexOf(';'));
  return { access: value, refresh: value };
}

function authHeaders(kind: AppKind, token: string): Record<string, string> {
  return kind === 'sdk' ? { authorization: `Bearer ${token}`, 'st-auth-mode': 'header' } : { cookie: token };
}

/** The app's protected route, round robin over the held sessions. */
export function protectedRequests(kind: AppKind, sessions: HeldSession[]): Request[] {
  let counter = 0;
  return [
    {
      method: 'GET',
      path: '/api/me',
      setupRequest: (request) => ({ ...request, headers: authHeaders(kind, sessions[counter++ % sessions.length].access) }),
    },
  ];
}

function header(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? String(value[0]) : String(value);
  }
  return undefined;
}

/**
 * Each request takes a held session no other request has in flight and refreshes it with the token of its last
 * answer (the SDK rotates the refresh token on every refresh; two refreshes of one session at once, or an older
 * token again, would end it as theft); the answer gives the session back. autocannon clears a request's context
 * after every answer, so a connection cannot keep a session of its own. The held sessions keep the newest tokens,
 * so the next round goes on from there. `lost` counts answers without a new token.
 */
export function refreshRequests(kind: AppKind, sessions: HeldSession[], lost: { count: number }): Request[] {
  const free = sessions.map((_, slot) => slot);
  return [
    {
      method: 'POST',
      path: kind === 'sdk' ? '/auth/session/refresh' : '/api/refresh',
      setupRequest: (request, context) => {
        const slot = free.shift();
        if (slot === undefined) throw new Error('more refreshes in flight than held sessions');
        context.slot = slot;
        return { ...request, headers: authHeaders(kind, sessions[slot].refresh) };
      },
      onResponse: (status, _body, context, headers) => {
        const slot = context.slot as number;
        free.push(slot);
        if (kind === 'library') {
          if (status !== 200) lost.count++;
          return;
        }
        const token = header(headers, 'st-refresh-token');
        if (status === 200 && token) sessions[slot].refresh = token;
        else lost.count++;
      },
    },
  ];
}

/** How many requests the SDK app has sent to the core so far, by `METHOD /path`. */
export async function coreCalls(sdkAppUrl: string): Promise<Record<string, number>> {
  const response = await fetch(`${sdkAppUrl}/bench/core-calls`);
  return (await response.json()) as Record<string, number>;
}
