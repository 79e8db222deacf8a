import { unavailable, type AdapterOutcome } from './outcome.js';

// A source's answer is read up to this many bytes; a longer body is treated as an unavailable source.
const MAX_BODY_BYTES = 4096;

export interface SourceResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  json: unknown;
}

export interface SourceRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends one request to a source: no redirects followed, no cookies kept, the body capped. A network error, a
 * timeout or an oversized body comes back as an UNAVAILABLE outcome, built from what happened, never from the
 * request (which holds the password).
 */
export async function callSource(request: SourceRequest, signal: AbortSignal): Promise<SourceResponse | AdapterOutcome> {
  let response: Response;
  try {
    response = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body, redirect: 'manual', signal });
  } catch {
    return unavailable(signal.aborted ? 'timeout' : 'network error');
  }
  const text = await readCapped(response, signal);
  if (text === undefined) return unavailable(signal.aborted ? 'timeout' : 'answer too large');
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json };
}

export function isOutcome(value: SourceResponse | AdapterOutcome): value is AdapterOutcome {
  return 'kind' in value;
}

async function readCapped(response: Response, signal: AbortSignal): Promise<string | undefined> {
  if (!response.body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) {
        await response.body.cancel().catch(() => undefined);
        return undefined;
      }
      chunks.push(Buffer.from(chunk));
    }
  } catch {
    return undefined;
  }
  return signal.aborted ? undefined : Buffer.concat(chunks).toString('utf8');
}

/** Seconds or an HTTP date, as `Retry-After` allows; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const name of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[name];
  }
  return current;
}

export function text(value: unknown, ...path: string[]): string | undefined {
  const found = field(value, ...path);
  return typeof found === 'string' ? found : undefined;
}

/** The `sub` claim of a JWT, read without checking the signature: the token came over TLS from the source itself. */
export function jwtSubject(token: string | undefined): string | undefined {
  const payload = token?.split('.')[1];
  if (!payload) return undefined;
  try {
    return text(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')), 'sub');
  } catch {
    return undefined;
  }
}
