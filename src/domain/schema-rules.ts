import { utf8ByteLength } from './byte-length';
import { isJsonObject } from './json';
import { jsonText } from './json-text';
import { LIMITS } from './limits';
import { isPlainJson } from './plain-json';
import type { SchemaCompiler } from './schema-compiler';

/**
 * The §1 rules for one declared schema (input or output): plain JSON object, compact JSON at
 * most 65536 UTF-8 bytes, root `type` exactly `"object"`, compiles. Returns every problem.
 */
export function schemaProblems(value: unknown, schemas: SchemaCompiler): string[] {
  if (!isJsonObject(value)) return ['must be a JSON Schema object'];
  if (!isPlainJson(value)) return ['must be plain JSON data'];
  const text = jsonText(value);
  // A UTF-16 unit is at most 3 UTF-8 bytes: a short text needs no exact count.
  const bytes = text.length * 3 <= LIMITS.schemaBytes ? text.length : utf8ByteLength(text);
  if (bytes > LIMITS.schemaBytes) return [`is ${bytes} bytes as compact JSON, more than ${LIMITS.schemaBytes}`];
  const problems: string[] = [];
  if (value.type !== 'object') problems.push('root "type" must be "object"');
  const checked = schemas.check(value);
  if (!checked.ok) problems.push(`does not compile: ${checked.message}`);
  return problems;
}
