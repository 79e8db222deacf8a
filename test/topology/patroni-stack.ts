import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import YAML from 'yaml';
import { freePort, portOpen, sleep } from './ports.js';

// A production-shaped database on loopback from Debian's packages: etcd, two PostgreSQL 15 servers each run by
// Patroni (synchronous mode: a commit returns once the standby has flushed it, and only that standby is promoted),
// and HAProxy sending connections to whichever node answers 200 on Patroni's `/primary`. PostgreSQL refuses to run
// as root, so a root run hands every process to the postgres user.
export const stackBinaries = {
  etcd: '/usr/bin/etcd',
  patroni: '/usr/bin/patroni',
  haproxy: '/usr/sbin/haproxy',
  postgres: '/usr/lib/postgresql/15/bin',
};

export function missingStackBinaries(): string[] {
  return Object.values(stackBinaries).filter((file) => !fs.existsSync(file));
}

export interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  patroni: ChildProcess;
}

interface Member {
  name: string;
  role: string;
  state: string;
  timeline?: number;
}

export interface PatroniStack {
  nodes: PatroniNode[];
  /** HAProxy's port for writes: the node whose Patroni answers 200 on /primary. */
  haproxyPort: number;
  /** The members as the given node's Patroni reports them (undefined when it does not answer). */
  members(node: PatroniNode): Promise<Member[] | undefined>;
  /** The node holding the leader key and running, asked of every node still up. */
  leader(): Promise<PatroniNode | undefined>;
  /** Waits until one node leads and another is its streaming synchronous standby. */
  waitForSyncStandby(timeoutMs: number): Promise<{ leader: PatroniNode; standby: PatroniNode }>;
  /** SIGKILL to the node's postmaster and every backend at once: PostgreSQL dies, its Patroni lives on. */
  killPostgres(node: PatroniNode): void;
  /** The node's machine is lost: SIGKILL to its Patroni, then to its PostgreSQL; its leader key lapses after ttl. */
  killNode(node: PatroniNode): void;
  /** The last lines of a node's Patroni log, for failure messages and reports. */
  log(node: PatroniNode, lines?: number): string;
  stop(): Promise<void>;
}

const postgresIds = (): { uid: number; gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined;
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
  };
};

async function getJson(url: string): Promise<{ status: number; body: unknown } | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    const text = await response.text();
    return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : text };
  } catch {
    return undefined;
  }
}

/** The pids whose parent is `parent`, read from /proc. */
function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) children.push(Number(entry));
    } catch {
      // the process ended while listed
    }
  }
  return children;
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 && fs.existsSync(`/proc/${pid}`) ? pid : undefined;
  } catch {
    return undefined;
  }
}

function patroniConfig(node: Omit<PatroniNode, 'patroni'>, etcdPort: number, nodeDir: string): string {
  return YAML.stringify({
    scope: 'identity-core-test',
    namespace: '/identity-core-test/',
    name: node.name,
    restapi: { listen: `127.0.0.1:${node.restPort}`, connect_address: `127.0.0.1:${node.restPort}` },
    etcd3: { hosts: [`127.0.0.1:${etcdPort}`] },
    bootstrap: {
      dcs: {
        // ttl ≥ loop_wait + 2 × retry_timeout. The leader key of a node whose Patroni died lapses after ttl.
        ttl: 10,
        loop_wait: 1,
        retry_timeout: 3,
        maximum_lag_on_failover: 1048576,
        synchronous_mode: true,
        // A crashed primary fails over to the synchronous standby instead of restarting in place.
        primary_start_timeout: 0,
        postgresql: {
          use_pg_rewind: true,
          parameters: { synchronous_commit: 'on', max_connections: 100, shared_buffers: '32MB', wal_keep_size: '128MB' },
        },
      },
      initdb: [{ encoding: 'UTF8' }, 'no-sync'],
    },
    postgresql: {
      listen: `127.0.0.1:${node.pgPort}`,
      connect_address: `127.0.0.1:${node.pgPort}`,
      data_dir: node.dataDir,
      bin_dir: stackBinaries.postgres,
      pgpass: path.join(nodeDir, 'pgpass'),
      authentication: {
        superuser: { username: 'postgres' },
        replication: { username: 'postgres' },
        rewind: { username: 'postgres' },
      },
      pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust'],
      parameters: { unix_socket_directories: nodeDir },
    },
  });
}

function haproxyConfig(port: number, nodes: Omit<PatroniNode, 'patroni'>[]): string {
  return [
    'global',
    '  maxconn 400',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    '  timeout client 30m',
    '  timeout server 30m',
    '  timeout check 1s',
    'listen primary',
    `  bind 127.0.0.1:${port}`,
    '  option httpchk OPTIONS /primary',
    '  http-check expect status 200',
    '  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
    ...nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.pgPort} maxconn 100 check port ${node.restPort}`),
    '',
  ].join('\n');
}

export async function startPatroniStack(): Promise<PatroniStack> {
  const missing = missingStackBinaries();
  if (missing.length > 0) throw new Error(`not installed: ${missing.join(', ')}`);
  const owner = postgresIds();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-patroni-'));
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  const children: ChildProcess[] = [];
  const run = (name: string, command: string, args: string[]): ChildProcess => {
    const log = fs.openSync(path.join(dir, `${name}.log`), 'a');
    const child = spawn(command, args, {
      cwd: dir,
      env: { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', HOME: dir, LANG: 'C.UTF-8' },
      stdio: ['ignore', log, log],
      ...owner,
    });
    fs.closeSync(log);
    children.push(child);
    return child;
  };
  const readLog = (name: string, lines = 40) => {
    try {
      return fs
        .readFileSync(path.join(dir, `${name}.log`), 'utf8')
        .split('\n')
        .slice(-lines)
        .join('\n');
    } catch {
      return '';
    }
  };
  const ports = async (count: number) => {
    const list: number[] = [];
    while (list.length < count) {
      const port = await freePort();
      if (!list.includes(port)) list.push(port);
    }
    return list;
  };
  const [etcdPort, peerPort, haproxyPort, ...nodePorts] = await ports(7);
  const nodes: PatroniNode[] = [];

  const stop = async () => {
    for (const child of children.slice().reverse()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    // Patroni gone, each postmaster still running is stopped at once (SIGQUIT: immediate shutdown, backends too).
    for (const node of nodes) {
      const pid = postmasterPid(node.dataDir);
      if (pid) process.kill(pid, 'SIGQUIT');
    }
    for (let tries = 0; tries < 50 && nodes.some((node) => postmasterPid(node.dataDir)); tries++) await sleep(100);
    await Promise.all(
      children.map((child) =>
        child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined,
      ),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    const etcd = run('etcd', stackBinaries.etcd, [
      '--name=etcd0',
      `--data-dir=${path.join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-cluster=etcd0=http://127.0.0.1:${peerPort}`,
    ]);
    for (let tries = 0; ; tries++) {
      const health = await getJson(`http://127.0.0.1:${etcdPort}/health`);
      if (health?.status === 200) break;
      if (etcd.exitCode !== null || tries > 100) throw new Error(`etcd did not start:\n${readLog('etcd')}`);
      await sleep(100);
    }

    for (const [index, name] of ['node1', 'node2'].entries()) {
      const nodeDir = path.join(dir, name);
      fs.mkdirSync(nodeDir, { mode: 0o700 });
      if (owner) fs.chownSync(nodeDir, owner.uid, owner.gid);
      const spec = { name, pgPort: nodePorts[index * 2], restPort: nodePorts[index * 2 + 1], dataDir: path.join(nodeDir, 'data') };
      const config = path.join(nodeDir, 'patroni.yml');
      fs.writeFileSync(config, patroniConfig(spec, etcdPort, nodeDir));
      fs.chmodSync(config, 0o644);
      nodes.push({ ...spec, patroni: run(name, stackBinaries.patroni, [config]) });
    }
    // Both start together: the one that takes the initialize key bootstraps the cluster, the other clones it.
    for (let tries = 0; ; tries++) {
      const answers = await Promise.all(nodes.map((node) => getJson(`http://127.0.0.1:${node.restPort}/primary`)));
      if (answers.some((answer) => answer?.status === 200)) break;
      if (nodes.some((node) => node.patroni.exitCode !== null) || tries > 1200) {
        throw new Error(`no node became primary:\n${nodes.map((node) => readLog(node.name)).join('\n')}`);
      }
      await sleep(100);
    }

    const haproxyCfg = path.join(dir, 'haproxy.cfg');
    fs.writeFileSync(haproxyCfg, haproxyConfig(haproxyPort, nodes));
    fs.chmodSync(haproxyCfg, 0o644);
    const haproxy = run('haproxy', stackBinaries.haproxy, ['-db', '-f', haproxyCfg]);
    for (let tries = 0; !(await portOpen(haproxyPort)); tries++) {
      if (haproxy.exitCode !== null || tries > 100) throw new Error(`haproxy did not start:\n${readLog('haproxy')}`);
      await sleep(100);
    }
  } catch (error) {
    await stop();
    throw error;
  }

  const members = async (node: PatroniNode) => {
    const answer = await getJson(`http://127.0.0.1:${node.restPort}/cluster`);
    return answer?.status === 200 ? (answer.body as { members: Member[] }).members : undefined;
  };
  const stack: PatroniStack = {
    nodes,
    haproxyPort,
    members,
    async leader() {
      for (const node of nodes) {
        const list = await members(node);
        const leader = list?.find((member) => member.role === 'leader' && member.state === 'running');
        if (leader) return nodes.find((candidate) => candidate.name === leader.name);
      }
      return undefined;
    },
    async waitForSyncStandby(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const leader = await stack.leader();
        const list = leader && (await members(leader));
        const standby = list?.find((member) => member.role === 'sync_standby' && ['running', 'streaming'].includes(member.state));
        // Patroni's own view: the standby answers 200 on /sync only once it is the synchronous one.
        const node = standby && nodes.find((candidate) => candidate.name === standby.name);
        if (leader && node && (await getJson(`http://127.0.0.1:${node.restPort}/sync`))?.status === 200) return { leader, standby: node };
        if (Date.now() > deadline) {
          throw new Error(
            `no synchronous standby within ${timeoutMs} ms: ${JSON.stringify(list)}\n${nodes.map((n) => readLog(n.name)).join('\n')}`,
          );
        }
        await sleep(200);
      }
    },
    killPostgres(node) {
      const pid = postmasterPid(node.dataDir);
      if (!pid) throw new Error(`${node.name} has no running postmaster`);
      for (const target of [pid, ...childrenOf(pid)]) {
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
    killNode(node) {
      node.patroni.kill('SIGKILL');
      stack.killPostgres(node);
    },
    log: (node, lines) => readLog(node.name, lines),
    stop,
  };
  return stack;
}

/** Runs `work` on a client connected straight to the node's PostgreSQL (not through HAProxy). */
export async function onNode<T>(node: PatroniNode, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ host: '127.0.0.1', port: node.pgPort, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
