import { describe, expect, it } from 'vitest';
import { migrationTables, ownershipViolations, readSourceFiles, tableWrites, tablesWritten } from './source-graph.js';
import { tableOwners } from './table-owners.js';

describe('one owner per table', () => {
  const tables = migrationTables();
  const files = readSourceFiles();

  it('names an owner for every table of the migrations, and no table that is not one', () => {
    expect(Object.keys(tableOwners).sort()).toEqual([...tables].sort());
  });

  it('finds every write of src/ in the module that owns its table', () => {
    expect(ownershipViolations(tableWrites(files, tables), tableOwners)).toEqual([]);
  });

  it('has every table written by one module at most', () => {
    const writers = new Map<string, Set<string>>();
    for (const write of tableWrites(files, tables)) writers.set(write.table, (writers.get(write.table) ?? new Set()).add(write.module));
    expect(
      [...writers].filter(([, modules]) => modules.size > 1).map(([table, modules]) => `${table}: ${[...modules].join(', ')}`),
    ).toEqual([]);
  });

  it('reports a write from another module, inside a CTE, and a quoted name', () => {
    const writes = tableWrites(
      [
        {
          path: 'src/recipes/passkeys/repository.ts',
          text: "await db.query('WITH u AS (INSERT INTO users (user_id) VALUES ($1)) SELECT 1');",
        },
        { path: 'src/bulk-import/repository.ts', text: 'await db.query(`DELETE FROM "session_info" WHERE user_id = $1`);' },
        { path: 'src/users/login-method-repository.ts', text: "await db.query('UPDATE users SET email = $2 WHERE user_id = $1');" },
        { path: 'src/cli/anything.ts', text: "const text = 'DELETE FROM users';" },
      ],
      tables,
    );
    expect(ownershipViolations(writes, tableOwners)).toEqual([
      "src/recipes/passkeys/repository.ts writes users, owned by users: call the owner's repository instead",
      "src/bulk-import/repository.ts writes session_info, owned by recipes/session: call the owner's repository instead",
    ]);
  });

  it('reports a write to a table with no owner', () => {
    const withNew = new Set([...tables, 'passkey_things']);
    const writes = tableWrites([{ path: 'src/recipes/passkeys/repository.ts', text: 'INSERT INTO passkey_things VALUES (1)' }], withNew);
    expect(ownershipViolations(writes, tableOwners)).toEqual([
      'src/recipes/passkeys/repository.ts writes passkey_things, which has no owner: name one in test/architecture/table-owners.ts',
    ]);
  });

  it('reads reads as reads', () => {
    expect(tablesWritten('SELECT * FROM users u JOIN user_roles r ON r.user_id = u.user_id FOR UPDATE', tables)).toEqual([]);
  });
});
