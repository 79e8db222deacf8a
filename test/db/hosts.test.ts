import { describe, expect, it } from 'vitest';
import { ConnectionStringError, HostRotation, parseConnectionString } from '../../src/db/hosts.js';

describe('multi-host connection strings', () => {
  it.each([
    {
      what: 'one host',
      uri: 'postgresql://u:p@db.example:6432/app?sslmode=require',
      hosts: [{ host: 'db.example', port: 6432 }],
      readWrite: false,
      single: 'postgresql://u:p@db.example:6432/app?sslmode=require',
    },
    {
      what: 'three hosts, one without a port, read-write',
      uri: 'postgresql://u@h1:5433,h2,h3:5434/app?target_session_attrs=read-write&application_name=core',
      hosts: [
        { host: 'h1', port: 5433 },
        { host: 'h2', port: 5432 },
        { host: 'h3', port: 5434 },
      ],
      readWrite: true,
      single: 'postgresql://u@h1:5433/app?application_name=core',
    },
    {
      what: 'IPv6 hosts and target primary',
      uri: 'postgres://[::1]:5432,[fd00::2]/app?target_session_attrs=primary',
      hosts: [
        { host: '::1', port: 5432 },
        { host: 'fd00::2', port: 5432 },
      ],
      readWrite: true,
      single: 'postgres://[::1]:5432/app',
    },
    {
      what: 'no host at all',
      uri: 'postgresql:///app',
      hosts: [{ host: 'localhost', port: 5432 }],
      readWrite: false,
      single: 'postgresql://localhost:5432/app',
    },
  ])('reads $what', ({ uri, hosts, readWrite, single }) => {
    expect(parseConnectionString(uri)).toEqual({ hosts, readWrite, connectionString: single });
  });

  it.each([
    { uri: 'mysql://h/app', message: 'it must start with postgresql:// or postgres://' },
    { uri: 'postgresql://h1:99999/app', message: "'h1:99999' has no valid port" },
    { uri: 'postgresql://h1,/app', message: "'' is not a host or host:port" },
    {
      uri: 'postgresql://h1/app?target_session_attrs=standby',
      message: "target_session_attrs 'standby' is not supported: use 'read-write', 'primary' or 'any'",
    },
  ])('refuses $uri', ({ uri, message }) => {
    expect(() => parseConnectionString(uri)).toThrow(new ConnectionStringError(message));
  });

  it('moves new connections on from a failed host once, whoever reports it', () => {
    const rotation = new HostRotation([
      { host: 'a', port: 1 },
      { host: 'b', port: 2 },
    ]);
    expect(rotation.current().index).toBe(0);
    rotation.failed(0);
    // A second connection that had also tried host 0 must not move the rotation past the healthy host 1.
    rotation.failed(0);
    expect(rotation.current()).toEqual({ index: 1, host: { host: 'b', port: 2 } });
    rotation.failed(1);
    expect(rotation.current().index).toBe(0);
  });
});
