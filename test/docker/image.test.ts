import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { DockerfileParser } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { parse as parseYaml } from 'yaml';
import { databaseUrl } from '../helper.js';

// The Dockerfile is linted and read, and the command the image runs is run as the image would run it (its ENV, its
// CMD, its HEALTHCHECK), with `npm test`'s build as dist/. `npm run test:docker` builds and runs the real images.
const text = fs.readFileSync('Dockerfile', 'utf8');
const dockerfile = DockerfileParser.parse(text);
const stages = text.split(/^(?=FROM )/m).filter((part) => part.startsWith('FROM '));
const stageNamed = (name: string) => stages.find((stage) => stage.split('\n')[0].endsWith(` AS ${name}`))!;
const production = stages[stages.length - 1];
const instruction = (stage: string, keyword: string) =>
  stage
    .split('\n')
    .find((line) => line.startsWith(`${keyword} `))
    ?.slice(keyword.length + 1);

function stageEnv(stage: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of (instruction(stage, 'ENV') ?? '').matchAll(/(\w+)=(\S+)/g)) env[match[1]] = match[2];
  return env;
}

describe('Dockerfile', () => {
  it('has no lint findings (and the linter does find some in a bad one)', () => {
    expect(validate(text)).toEqual([]);
    expect(validate('FROM node\nEXPOSE port\nHEALTHCHECK CMD a\nHEALTHCHECK CMD b\n').length).toBeGreaterThan(1);
  });

  it('builds from one base image pinned to an exact Node LTS version that the engines field accepts', () => {
    const images = new Set(dockerfile.getFROMs().map((from) => `${from.getImageName()}:${from.getImageTag()}`));
    expect([...images]).toEqual(['node:24.21.0-bookworm-slim']);
    const engines = JSON.parse(fs.readFileSync('package.json', 'utf8')).engines.node as string;
    expect(engines).toBe('>=20');
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(20);
  });

  it('ends in a production stage: no embedded PostgreSQL, non-root, HEALTHCHECK, DATABASE_URL required', () => {
    expect(production.split('\n')[0]).toBe('FROM node:24.21.0-bookworm-slim AS production');
    expect(production).toContain('COPY --from=dependencies /app/node_modules ./node_modules');
    expect(instruction(stageNamed('dependencies'), 'RUN')).toContain('npm ci --omit=dev --omit=optional');
    expect(production).not.toMatch(/embedded|npm ci|COPY src/);
    expect(instruction(production, 'USER')).toBe('node');
    expect(instruction(production, 'HEALTHCHECK')).toMatch(/CMD \["node", "dist\/healthcheck.js"\]$/);
    expect(instruction(production, 'CMD')).toBe('["node", "dist/server.js"]');
    expect(stageEnv(production)).toEqual({ HOST: '0.0.0.0', PORT: '3567', ALLOW_EMBEDDED_DATABASE: 'false' });
  });

  it('offers an embedded target only with a volume for its data', () => {
    const embedded = stageNamed('embedded');
    expect(embedded).toContain('COPY --from=dependencies-embedded /app/node_modules ./node_modules');
    expect(instruction(embedded, 'VOLUME')).toBe('["/data"]');
    expect(stageEnv(embedded)).toMatchObject({ ALLOW_EMBEDDED_DATABASE: 'true', EMBEDDED_DATA_DIR: '/data' });
    expect(instruction(embedded, 'USER')).toBe('node');
  });
});

describe('docker-compose.yml', () => {
  const compose = parseYaml(fs.readFileSync('docker-compose.yml', 'utf8'));

  it('refuses to start without API_KEYS and takes the database password from the environment', () => {
    const core = compose.services.core.environment;
    expect(core.API_KEYS).toMatch(/^\$\{API_KEYS:\?.+\}$/);
    expect(core.POSTGRESQL_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?.+\}$/);
    expect(compose.services.postgres.environment.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?.+\}$/);
    expect(JSON.stringify(compose)).not.toMatch(/postgresql:\/\/[^@"]*:[^@"$]*@/);
  });

  it('pins the database image and starts the core once the database is healthy', () => {
    expect(compose.services.postgres.image).toMatch(/^postgres:\d+\.\d+/);
    expect(compose.services.core.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it('restarts the core unless stopped and publishes its port on 127.0.0.1 unless told otherwise', () => {
    expect(compose.services.core.restart).toBe('unless-stopped');
    expect(compose.services.core.ports).toEqual(['${CORE_PUBLISH_ADDRESS:-127.0.0.1}:${CORE_PORT:-3567}:3567']);
  });
});

const schemas: string[] = [];
afterAll(async () => {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

// Runs a JSON-form CMD of the production stage with the stage's ENV (and `extra`), from the repository root.
function runImageCommand(form: string, extra: Record<string, string>) {
  const [command, ...args] = JSON.parse(form.replace(/^.*CMD /, '')) as string[];
  expect(command).toBe('node');
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...stageEnv(production), ...extra } });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('the command the image runs', () => {
  it('says clearly that DATABASE_URL is required when it is missing', async () => {
    const run = runImageCommand(instruction(production, 'CMD')!, {});
    expect(await run.exited).toBe(1);
    expect(run.output()).toBe(
      'identity-core: invalid configuration: no database configured: set DATABASE_URL (or postgresql_connection_uri or postgresql_host); ' +
        "the embedded PostgreSQL is off ('allow_embedded_database' is false)\n",
    );
  });

  it('serves with DATABASE_URL, and its HEALTHCHECK passes while it serves and fails once it stopped', async () => {
    const schema = `image_${crypto.randomBytes(5).toString('hex')}`;
    schemas.push(schema);
    const port = String(await freePort());
    const env = { DATABASE_URL: databaseUrl, POSTGRESQL_TABLE_SCHEMA: schema, PORT: port };
    const server = runImageCommand(instruction(production, 'CMD')!, env);
    const listening = new RegExp(`Server listening at http://[^"]+:${port}`);
    await expect.poll(() => server.output(), { timeout: 20_000, interval: 50 }).toMatch(listening);

    const healthcheck = () => runImageCommand(instruction(production, 'HEALTHCHECK')!, env).exited;
    expect(await healthcheck()).toBe(0);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(await healthcheck()).toBe(1);
  }, 60_000);
});
