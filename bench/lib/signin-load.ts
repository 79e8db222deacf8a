import type { Request } from 'autocannon';
import type { Credential } from './credentials.js';
import { isOk, runLoad, type LoadResult } from './load.js';
import { postJson } from './scenario.js';

export const signinPath = '/recipe/signin';

/** Sign-ins with correct passwords, cycling through the accounts so every hash is verified in turn. */
export function signinRequests(credentials: Credential[]): Request[] {
  let counter = 0;
  return [
    {
      method: 'POST',
      path: signinPath,
      setupRequest: (request) => {
        const { email, password } = credentials[counter++ % credentials.length];
        return { ...request, body: JSON.stringify({ email, password }) };
      },
    },
  ];
}

export function signinLoad(url: string, credentials: Credential[], connections: number, seconds: number): Promise<LoadResult> {
  return runLoad({ url, connections, seconds, maxRequests: seconds * 2000, requests: signinRequests(credentials), verifyBody: isOk });
}

/** One sign-in per distinct hash before measuring: a benchmark of WRONG_CREDENTIALS_ERROR would mean nothing. */
export async function assertSigninWorks(url: string, credentials: Credential[]): Promise<void> {
  const seen = new Set<string>();
  for (const credential of credentials) {
    if (seen.has(credential.hash)) continue;
    seen.add(credential.hash);
    const { status, json } = await postJson(url, signinPath, { email: credential.email, password: credential.password });
    if (status !== 200 || json.status !== 'OK') throw new Error(`sign-in of a seeded user answered ${status} ${JSON.stringify(json)}`);
  }
}
