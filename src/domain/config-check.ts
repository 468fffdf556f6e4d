import type { Violation } from './errors';
import { isJsonObject, type JsonObject } from './json';
import { isPlainJson } from './plain-json';
import type { SchemaCompiler, SchemaIssue } from './schema-compiler';
import { fieldPath, kindOf } from './violation-list';

/** The path of a violation about the configuration as a whole. */
const ROOT_PATH = '(root)';

/**
 * Every way `values` breaks `schema` (docs/lifecycle.md), each located by its key (`token`,
 * `hosts[1]`, `retry.max`) and never quoting a value, since a value may be a secret. A
 * plugin without a `config_schema` accepts any JSON object. Empty when it conforms.
 */
export function configurationViolations(schema: JsonObject | undefined, values: unknown, schemas: SchemaCompiler): Violation[] {
  if (!isJsonObject(values) || !isPlainJson(values)) {
    return [{ path: ROOT_PATH, message: `the configuration must be a JSON object of values, not ${kindOf(values)}` }];
  }
  if (schema === undefined) return [];
  const compiled = schemas.compile(schema);
  if (!compiled.ok) return [{ path: 'config_schema', message: `does not compile: ${compiled.message}` }];
  return compiled.schema.validate(values).map(violationOf);
}

function violationOf(issue: SchemaIssue): Violation {
  const at = pointerPath(issue.instancePath);
  if (issue.missingProperty !== undefined) return { path: fieldPath(at, issue.missingProperty), message: 'is required' };
  if (issue.extraProperty !== undefined) return { path: fieldPath(at, issue.extraProperty), message: 'is not a key config_schema allows' };
  return { path: at === '' ? ROOT_PATH : at, message: issue.message };
}

/** `/hosts/1/name` → `hosts[1].name` (JSON pointer escapes undone). */
function pointerPath(pointer: string): string {
  if (pointer === '') return '';
  let path = '';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path = /^(0|[1-9]\d*)$/.test(segment) && path !== '' ? `${path}[${segment}]` : fieldPath(path, segment);
  }
  return path;
}
