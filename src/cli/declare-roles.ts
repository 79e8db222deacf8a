import type { SourceRecord } from './bulk-user.js';
import type { CoreClient } from './core-client.js';
import type { Mapping } from './mapping.js';
import type { OpenedSource } from './readers/index.js';

/**
 * Declares the mapping's roles, with their permissions, once per run before any user is sent, and each role the
 * mapping keeps under its source name (`unmapped: keep`) before the first user holding it is sent. The core then
 * assigns them in the import itself (contract M-4.3).
 */
export class RoleDeclarer {
  private readonly declared = new Set<string>();

  constructor(
    private readonly client: CoreClient,
    private readonly mapping: Mapping | undefined,
  ) {}

  /** Returns how many roles the core did not have before. */
  async declareMapped(): Promise<number> {
    let created = 0;
    for (const [role, permissions] of this.mapping?.roles ?? []) {
      if (await this.client.putRole(role, permissions)) created++;
      this.declared.add(role);
    }
    return created;
  }

  async ensure(roles: readonly string[]): Promise<void> {
    for (const role of roles) {
      if (this.declared.has(role)) continue;
      await this.client.putRole(role, []);
      this.declared.add(role);
    }
  }

  /** The same pass, with the roles of each user declared before the user is handed on to be sent. */
  declaring(source: OpenedSource): OpenedSource {
    const ensure = (roles: readonly string[]) => this.ensure(roles);
    async function* records(): AsyncGenerator<SourceRecord> {
      for await (const record of source.records) {
        const roles = record.user?.userRoles;
        if (roles !== undefined) await ensure(roles.map((entry) => entry.role));
        yield record;
      }
    }
    return { ...source, records: records() };
  }
}

/**
 * A dry run declares no role, so the roles a real run would declare are not sent for the core to check: the report
 * still lists them per user.
 */
export function withoutRoles(source: OpenedSource): OpenedSource {
  async function* records(): AsyncGenerator<SourceRecord> {
    for await (const record of source.records) {
      if (record.user?.userRoles === undefined) {
        yield record;
        continue;
      }
      const { userRoles: _declaredByARealRun, ...user } = record.user;
      yield { ...record, user };
    }
  }
  return { ...source, records: records() };
}
