import type { JsonObject } from './json';

/** One problem a value has against a schema, located by a JSON pointer such as `/value`. */
export interface SchemaIssue {
  instancePath: string;
  message: string;
}

/** A compiled schema: `validate` returns the issues, empty when the value conforms. */
export interface CompiledSchema {
  validate(value: unknown): SchemaIssue[];
}

/**
 * Domain port for JSON Schema compilation (CONTRACT §1: draft 2020-12 by default, draft-07
 * when `$schema` names it, any other `$schema` refused, no remote `$ref`). Implementations
 * cache compiled validators per schema, so compiling the same schema twice is cheap.
 */
export abstract class SchemaCompiler {
  /** Compiles `schema`; returns the compiled form, or a message saying why it does not compile. */
  abstract compile(schema: JsonObject): { ok: true; schema: CompiledSchema } | { ok: false; message: string };
}
