import type { InjectOptions } from 'fastify';
import type { BodyMutation, FuzzCase, QueryMutation, RawMutation } from './mutations.js';
import { fuzzApiKey, type RouteCase, type Seed } from './routes.js';

type Container = Record<string, unknown> | unknown[];
const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null;

function define(container: Container, key: string, value: unknown): void {
  // defineProperty, not assignment: a "__proto__" key must become an own property, as JSON.parse makes it.
  Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true });
}

// The container and key a path of indices leads to (each index taken modulo the keys present at its level).
function locate(root: Container, path: number[]): { parent: Container; key: string } | undefined {
  let parent = root;
  for (let step = 0; step < path.length; step++) {
    const keys = Object.keys(parent);
    if (keys.length === 0) return undefined;
    const key = keys[path[step] % keys.length];
    const child = (parent as Record<string, unknown>)[key];
    if (step === path.length - 1 || !isContainer(child) || Object.keys(child).length === 0) return { parent, key };
    parent = child;
  }
  return undefined;
}

function applyBody(body: unknown, mutation: BodyMutation): unknown {
  if (mutation.op === 'replace') return mutation.value;
  if (!isContainer(body)) return body;
  const spot = locate(body, mutation.path);
  if (mutation.op === 'add') {
    const child = spot && (spot.parent as Record<string, unknown>)[spot.key];
    const target = isContainer(child) ? child : (spot?.parent ?? body);
    // An array gets one more item: a named property on it would be invisible to JSON (and confuse Array methods).
    if (Array.isArray(target)) target.push(mutation.value);
    else define(target, mutation.key, mutation.value);
    return body;
  }
  if (!spot) return body;
  if (mutation.op === 'delete') {
    if (Array.isArray(spot.parent)) spot.parent.splice(Number(spot.key), 1);
    else delete spot.parent[spot.key];
  } else {
    define(spot.parent, spot.key, mutation.value);
  }
  return body;
}

const marker = 'zzRAWBYTESzz';

function serialise(body: unknown, raw: RawMutation | undefined): Buffer {
  if (raw?.op === 'text') return Buffer.from(raw.text);
  if (raw?.op === 'bytesInString' && isContainer(body)) {
    const spot = locate(body, raw.path);
    if (spot) define(spot.parent, spot.key, `a${marker}b`);
  }
  let text = JSON.stringify(body) ?? '';
  if (raw?.op === 'duplicateKey' && isContainer(body) && !Array.isArray(body) && Object.keys(body).length > 0) {
    text = `{${JSON.stringify(Object.keys(body)[0])}:"duplicated",${text.slice(1)}`;
  }
  let bytes = Buffer.from(text);
  if (raw?.op === 'bytesInString') {
    bytes = Buffer.concat(
      text.split(marker).flatMap((part, index) => (index === 0 ? [Buffer.from(part)] : [Buffer.from(raw.bytes), Buffer.from(part)])),
    );
  } else if (raw?.op === 'truncate') {
    bytes = bytes.subarray(0, raw.at % (bytes.length + 1));
  } else if (raw?.op === 'insert') {
    const at = raw.at % (bytes.length + 1);
    bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(raw.bytes), bytes.subarray(at)]);
  }
  return bytes;
}

function applyQuery(entries: [string, string][], mutation: QueryMutation): string | undefined {
  const at = (index: number) => index % Math.max(entries.length, 1);
  switch (mutation.op) {
    case 'delete':
      entries.splice(at(mutation.index), 1);
      return undefined;
    case 'set':
      if (entries.length > 0) entries[at(mutation.index)][1] = mutation.value;
      return undefined;
    case 'add':
      entries.push([mutation.key, mutation.value]);
      return undefined;
    case 'repeat':
      // The first value wins (contract §1.7): put the hostile one first.
      if (entries.length > 0) entries.unshift([entries[at(mutation.index)][0], mutation.value]);
      return undefined;
    case 'raw':
      return mutation.text;
  }
}

// encodeURIComponent throws on lone surrogates; a client sending bytes does not care.
function percentEncode(text: string): string {
  return [...Buffer.from(text)]
    .map((byte) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, '0')}`,
    )
    .join('');
}

export function buildRequest(route: RouteCase, seed: Seed, fuzz: FuzzCase): InjectOptions & { description: string } {
  let body: unknown = route.body?.(seed);
  for (const mutation of fuzz.body) if (body !== undefined || mutation.op === 'replace') body = applyBody(body, mutation);
  const payload = body === undefined && fuzz.raw?.op !== 'text' ? undefined : serialise(body, fuzz.raw);

  const entries = Object.entries(route.query?.(seed) ?? {});
  const rawParts = fuzz.query.map((mutation) => applyQuery(entries, mutation)).filter((part) => part !== undefined);
  const query = [...entries.map(([key, value]) => `${percentEncode(key)}=${percentEncode(value)}`), ...rawParts].join('&');

  const headers: Record<string, string> = {};
  if (fuzz.headers.apiKey === 'right') headers['api-key'] = fuzzApiKey;
  if (fuzz.headers.apiKey === 'wrong') headers['api-key'] = 'wrong-api-key-wrong-api-key';
  if (fuzz.headers.apiKey === 'bearer') headers.authorization = `Bearer ${fuzzApiKey}`;
  if (fuzz.headers.cdiVersion !== undefined) headers['cdi-version'] = fuzz.headers.cdiVersion;
  const rid = fuzz.headers.rid ?? route.rid;
  if (rid !== undefined) headers.rid = rid;
  if (payload !== undefined && fuzz.headers.contentType !== null) headers['content-type'] = fuzz.headers.contentType ?? 'application/json';

  const method = fuzz.method ?? route.method;
  const url = `${fuzz.prefix ?? ''}${route.path}${query === '' ? '' : `?${query}`}`;
  const shown =
    payload === undefined
      ? ''
      : ` ${payload.length > 400 ? `${payload.subarray(0, 400).toString()}… (${payload.length} bytes)` : payload.toString()}`;
  return { method, url, headers, payload, description: `${route.name}: ${method} ${url} ${JSON.stringify(headers)}${shown}` };
}
