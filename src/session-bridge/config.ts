import { SOURCE_NAME } from '../hashing/lazy-pointer.js';
import { BlockConfigError, allowOnly, mapping, reader, type Raw } from '../config/block-reader.js';
import { bridgeKinds, bridgeKindNames, type BridgeKindName } from './kinds/index.js';
import type { Trust } from './kinds/types.js';

// The `session_bridge` block: one YAML mapping (or the same structure as JSON in SESSION_BRIDGE), read like
// `lazy_migration`: any string value may be `env:NAME`, and a bad value stops startup naming its key.

export interface BridgeSourceConfig extends Trust {
  name: string;
  kind: BridgeKindName;
  /** Milliseconds since the epoch from which the source is refused. */
  deadline?: number;
  /** Bound on one key-set fetch. */
  timeoutMs: number;
  /** How long a fetched key set is trusted before it is fetched again. */
  keyTtlMs: number;
  /** Mapped users are found by this prefix followed by the old id. */
  externalIdPrefix: string;
  /** Whether the operator set the prefix (then sources sharing it share their users on purpose). */
  externalIdPrefixSet: boolean;
  /** Pending lazy-migration users are found only when their pointer names this lazy source. */
  lazySource: string;
  /** Longer prefixes of sources of other issuers: an id under one of them is that source's user, never this one's. */
  foreignPrefixes: readonly string[];
}

export interface SessionBridgeConfig {
  sources: ReadonlyMap<string, BridgeSourceConfig>;
}

export const disabledSessionBridge: SessionBridgeConfig = { sources: new Map() };

const commonKeys = [
  'kind',
  'jwks_url',
  'allow_http',
  'deadline',
  'claim',
  'timeout_ms',
  'key_ttl_seconds',
  'external_id_prefix',
  'lazy_source',
];

export function parseSessionBridgeConfig(raw: unknown, env: Record<string, string | undefined>): SessionBridgeConfig {
  if (raw === undefined || raw === null) return disabledSessionBridge;
  const block = mapping(raw, 'session_bridge');
  allowOnly(block, 'session_bridge', ['sources']);
  const sources = new Map<string, BridgeSourceConfig>();
  const rawSources = block.sources === undefined ? {} : mapping(block.sources, 'session_bridge.sources');
  for (const [name, value] of Object.entries(rawSources)) {
    const path = `session_bridge.sources.${name}`;
    if (!SOURCE_NAME.test(name)) throw new BlockConfigError(`'${path}': a source name must be 1 to 32 characters of a-z, 0-9, _ and -`);
    sources.set(name, parseSource(name, mapping(value, path), path, env));
  }
  separateUsers(sources);
  return { sources };
}

// A token names only users imported from its own provider (docs/session-bridge.md). Two providers' old ids may be
// equal, so sources of different issuers may look up mapped users under one prefix only when the operator set it on
// both; and a source whose prefix starts another's (the empty one starts every prefix) leaves that one's ids alone.
function separateUsers(sources: Map<string, BridgeSourceConfig>): void {
  const all = [...sources.values()];
  for (const [index, source] of all.entries()) {
    const other = all
      .slice(0, index)
      .find((earlier) => earlier.issuer !== source.issuer && earlier.externalIdPrefix === source.externalIdPrefix);
    if (other && !(other.externalIdPrefixSet && source.externalIdPrefixSet)) {
      throw new BlockConfigError(
        `'session_bridge.sources.${source.name}.external_id_prefix' must be set: source '${other.name}' of another issuer would find the same mapped users`,
      );
    }
  }
  for (const [name, source] of sources) {
    const foreignPrefixes = all
      .filter((other) => other.issuer !== source.issuer && other.externalIdPrefix.length > source.externalIdPrefix.length)
      .map((other) => other.externalIdPrefix)
      .filter((prefix) => prefix.startsWith(source.externalIdPrefix));
    sources.set(name, { ...source, foreignPrefixes });
  }
}

function parseSource(name: string, block: Raw, path: string, env: Record<string, string | undefined>): BridgeSourceConfig {
  const kindName = block.kind;
  if (typeof kindName !== 'string' || !(bridgeKindNames as string[]).includes(kindName)) {
    throw new BlockConfigError(`'${path}.kind' must be one of ${bridgeKindNames.join(', ')}`);
  }
  const kind = bridgeKinds[kindName as BridgeKindName];
  allowOnly(block, path, [...commonKeys, ...kind.required, ...kind.optional]);
  for (const key of kind.required)
    if (block[key] === undefined) throw new BlockConfigError(`'${path}.${key}' is required for kind ${kindName}`);
  const read = reader(block, path, env);
  const trust = kind.trust(read);
  const override = read.str('jwks_url');
  const jwksUrl = override ?? trust.jwksUrl;
  checkKeyUrl(jwksUrl, `${path}.${override === undefined ? trust.jwksUrlKey : 'jwks_url'}`, read.bool('allow_http', false));
  const deadlineText = read.str('deadline');
  const deadline = deadlineText === undefined ? undefined : Date.parse(deadlineText);
  if (deadline !== undefined && (Number.isNaN(deadline) || !/^\d{4}-\d{2}-\d{2}/.test(deadlineText!))) {
    throw new BlockConfigError(`'${path}.deadline' must be an ISO 8601 date and time`);
  }
  const claim = read.str('claim');
  const prefixSet = block.external_id_prefix !== undefined && block.external_id_prefix !== null;
  const lazySource = read.str('lazy_source') ?? name;
  if (!SOURCE_NAME.test(lazySource)) throw new BlockConfigError(`'${path}.lazy_source' must be 1 to 32 characters of a-z, 0-9, _ and -`);
  return {
    ...trust,
    name,
    kind: kindName as BridgeKindName,
    jwksUrl,
    subjectClaims: claim === undefined ? trust.subjectClaims : [claim],
    deadline,
    timeoutMs: read.int('timeout_ms', 3000, 100, 10_000),
    keyTtlMs: read.int('key_ttl_seconds', 600, 30, 86_400) * 1000,
    // An empty prefix is a choice too: old ids looked up as they are, by every source that sets it.
    externalIdPrefix: prefixSet && block.external_id_prefix === '' ? '' : (read.str('external_id_prefix') ?? ''),
    externalIdPrefixSet: prefixSet,
    lazySource,
    foreignPrefixes: [],
  };
}

// Keys decide whose tokens are believed, so they come over TLS; plain http only to this machine (a test, a sidecar)
// and only when the operator says so.
function checkKeyUrl(text: string, path: string, allowHttp: boolean): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BlockConfigError(`'${path}' does not give a valid URL`);
  }
  if (url.username || url.password) throw new BlockConfigError(`'${path}' must not carry credentials in the URL`);
  if (url.protocol === 'https:') return;
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol === 'http:' && loopback && allowHttp) return;
  throw new BlockConfigError(`'${path}' must be an https URL (plain http only to loopback, with allow_http: true)`);
}
