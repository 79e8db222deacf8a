import { javaTrim } from '../normalise/java-trim.js';
import { errorMessage } from '../errors.js';

// Typed reads of one JSON key with the §10.2 messages: `<key> should be of type <type><suffix>` when present with
// the wrong type (JSON null included), `<key> is required<suffix>` when a required key is absent.

export type JsonObject = Record<string, unknown>;

type FieldType = 'string' | 'integer' | 'boolean' | 'object' | 'array of string' | 'array of object';

interface TypeOf {
  string: string;
  integer: number;
  boolean: boolean;
  object: JsonObject;
  'array of string': string[];
  'array of object': JsonObject[];
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// "Non-blank": the reference rejects empty strings; the contract also rejects whitespace-only ones.
function isNonBlankString(value: unknown): value is string {
  return typeof value === 'string' && javaTrim(value) !== '';
}

const checks: { [T in FieldType]: (value: unknown) => boolean } = {
  string: isNonBlankString,
  integer: (value) => typeof value === 'number' && Number.isSafeInteger(value),
  boolean: (value) => typeof value === 'boolean',
  object: isJsonObject,
  'array of string': (value) => Array.isArray(value) && value.every(isNonBlankString),
  'array of object': (value) => Array.isArray(value) && value.every(isJsonObject),
};

export class FieldReader {
  constructor(
    private readonly errors: string[],
    private readonly suffix: string,
  ) {}

  read<T extends FieldType>(source: JsonObject, key: string, type: T, required = false): TypeOf[T] | undefined {
    if (!Object.hasOwn(source, key)) {
      if (required) this.errors.push(errorMessage('BULK_FIELD_REQUIRED', key, this.suffix));
      return undefined;
    }
    const value = source[key];
    if (!checks[type](value)) {
      this.errors.push(errorMessage('BULK_FIELD_TYPE', key, type, this.suffix));
      return undefined;
    }
    return value as TypeOf[T];
  }
}
