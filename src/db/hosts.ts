// libpq's multi-host connection strings (`postgresql://h1:5432,h2:5433/db?target_session_attrs=read-write`), which
// node-postgres and the WHATWG URL parser both refuse: the host list is taken out, the rest is a one-host URL.

export interface HostPort {
  host: string;
  port: number;
}

export interface ConnectionTarget {
  /** Tried in this order; a failed or read-only host moves the next connection on to the one after it. */
  hosts: HostPort[];
  /** target_session_attrs=read-write (or primary): keep only a server whose `transaction_read_only` is off. */
  readWrite: boolean;
  /** The connection string with the first host, for everything but the host: user, password, database, ssl. */
  connectionString: string;
}

const uriShape = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/s;
const defaultPort = 5432;

export class ConnectionStringError extends Error {}

function parseHost(part: string, fallbackPort: number): HostPort {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(part);
  const plain = /^([^:]+)(?::(\d+))?$/.exec(part);
  const match = bracketed ?? plain;
  if (!match || match[1] === '') throw new ConnectionStringError(`'${part}' is not a host or host:port`);
  const port = match[2] === undefined ? fallbackPort : Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConnectionStringError(`'${part}' has no valid port`);
  return { host: match[1], port };
}

/** Splits a comma-separated host list ("h1:5432,h2"), each host without a port taking `fallbackPort`. */
export function parseHostList(list: string, fallbackPort = defaultPort): HostPort[] {
  return list.split(',').map((part) => parseHost(part.trim(), fallbackPort));
}

function readTarget(value: string | null): boolean {
  if (value === null || value === 'any') return false;
  if (value === 'read-write' || value === 'primary') return true;
  throw new ConnectionStringError(`target_session_attrs '${value}' is not supported: use 'read-write', 'primary' or 'any'`);
}

export function parseConnectionString(uri: string): ConnectionTarget {
  const match = uriShape.exec(uri);
  if (!match) throw new ConnectionStringError('it must start with postgresql:// or postgres://');
  const [, scheme, userInfo, hostList, rest] = match;
  const hosts = hostList === '' ? [{ host: 'localhost', port: defaultPort }] : parseHostList(hostList);
  const first = hosts[0].host.includes(':') ? `[${hosts[0].host}]` : hosts[0].host;
  let url: URL;
  try {
    url = new URL(`${scheme}${userInfo === undefined ? '' : `${userInfo}@`}${first}:${hosts[0].port}${rest}`);
  } catch {
    throw new ConnectionStringError('it is not a valid URL');
  }
  const readWrite = readTarget(url.searchParams.get('target_session_attrs'));
  // node-postgres would pass an unknown parameter on as a startup parameter, which poolers refuse.
  url.searchParams.delete('target_session_attrs');
  return { hosts, readWrite, connectionString: url.toString() };
}

/** The host new connections go to first: it moves on when a connection to it fails or finds a standby. */
export class HostRotation {
  private preferred = 0;
  constructor(readonly hosts: HostPort[]) {}

  current(): { index: number; host: HostPort } {
    return { index: this.preferred, host: this.hosts[this.preferred] };
  }

  /** Host `index` failed; the next connection tries the one after it (unless another failure moved on already). */
  failed(index: number): void {
    if (this.preferred === index) this.preferred = (index + 1) % this.hosts.length;
  }
}
