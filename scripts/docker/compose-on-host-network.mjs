// Reads `docker-compose config` output on stdin and writes it back with the core service on the host's network:
// the machine's PostgreSQL (database named by the first argument) on loopback, the port of the second argument,
// the image built by smoke.sh, and the signer key read from a file in the folder of the third argument.
import fs from 'node:fs';
import { parse, stringify } from 'yaml';

const [database, port, secretsDir] = process.argv.slice(2);
const compose = parse(fs.readFileSync(0, 'utf8'));
const core = compose.services.core;
delete core.ports;
delete core.build;
core.image = 'identity-core:smoke';
core.network_mode = 'host';
core.volumes = [`${secretsDir}:/run/secrets:ro`];
Object.assign(core.environment, {
  PORT: port,
  POSTGRESQL_HOST: '127.0.0.1',
  POSTGRESQL_USER: 'postgres',
  POSTGRESQL_DATABASE_NAME: database,
  IDP_PASSWORD_HASHING_SIGNER_KEY: '',
  IDP_PASSWORD_HASHING_SIGNER_KEY_FILE: '/run/secrets/signer_key',
});
process.stdout.write(stringify(compose));
