// Reading a nested configuration block (lazy_migration, session_bridge): typed values, `env:NAME` indirection and
// errors that name the key, so a bad block stops startup with one line.

export class BlockConfigError extends Error {}

export type Raw = Record<string, unknown>;

export type BlockReader = ReturnType<typeof reader>;

export function mapping(value: unknown, path: string): Raw {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new BlockConfigError(`'${path}' must be a mapping`);
  return value as Raw;
}

export function allowOnly(block: Raw, path: string, keys: string[]): void {
  for (const key of Object.keys(block)) if (!keys.includes(key)) throw new BlockConfigError(`'${path}.${key}' is not a known key`);
}

export function reader(block: Raw, path: string, env: Record<string, string | undefined>) {
  const resolve = (key: string): unknown => {
    const value = block[key];
    if (typeof value !== 'string' || !value.startsWith('env:')) return value;
    const variable = value.slice('env:'.length);
    const found = env[variable];
    if (found === undefined || found.trim() === '')
      throw new BlockConfigError(`'${path}.${key}' names the environment variable ${variable}, which is not set`);
    return found.trim();
  };
  return {
    path,
    str(key: string): string | undefined {
      const value = resolve(key);
      if (value === undefined || value === null) return undefined;
      if (typeof value !== 'string' || value.trim() === '') throw new BlockConfigError(`'${path}.${key}' must be a non-empty string`);
      return value.trim();
    },
    int(key: string, fallback: number, min: number, max: number): number {
      const value = resolve(key);
      if (value === undefined || value === null) return fallback;
      const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
      if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
        throw new BlockConfigError(`'${path}.${key}' must be an integer from ${min} to ${max}`);
      }
      return number;
    },
    bool(key: string, fallback: boolean): boolean {
      const value = resolve(key);
      if (value === undefined || value === null) return fallback;
      if (value === true || value === 'true') return true;
      if (value === false || value === 'false') return false;
      throw new BlockConfigError(`'${path}.${key}' must be true or false`);
    },
    stringMap(key: string): Record<string, string> {
      if (block[key] === undefined) return {};
      const entries = mapping(block[key], `${path}.${key}`);
      const nested = reader(entries, `${path}.${key}`, env);
      return Object.fromEntries(Object.keys(entries).map((name) => [name, nested.str(name)!]));
    },
  };
}
