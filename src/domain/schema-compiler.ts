import type { JsonObject } from './json';

/** One problem a value has against a schema, located by a JSON pointer such as `/value`. */
export interface SchemaIssue {
  instancePath: string;
  message: string;
  /** For a `required` failure: the property that is missing under `instancePath`. */
  missingProperty?: string;
  /** For an `additionalProperties` failure: the property that is not allowed under `instancePath`. */
  extraProperty?: string;
}

/** A compiled schema: `validate` returns the issues, empty when the value conforms. */
export interface CompiledSchema {
  validate(value: unknown): SchemaIssue[];
}

/**
 * Domain port for JSON Schema compilation (docs/plugin-protocol.md §2: draft 2020-12 by default, draft-07
 * when `$schema` names it, any other `$schema` refused, no remote `$ref`). Implementations
 * cache compiled validators per schema, so compiling the same schema twice is cheap.
 */
export abstract class SchemaCompiler {
  /** Compiles `schema`; returns the compiled form, or a message saying why it does not compile. */
  abstract compile(schema: JsonObject): { ok: true; schema: CompiledSchema } | { ok: false; message: string };

  /**
   * Says whether `schema` compiles, with the same answer and message as compile(), possibly
   * without compiling it (an implementation may vouch for a schema against its meta-schema and
   * compile only what that cannot cover). By default it compiles.
   */
  check(schema: JsonObject): SchemaCheck {
    const compiled = this.compile(schema);
    return compiled.ok ? { ok: true } : { ok: false, message: compiled.message };
  }
}

export type SchemaCheck = { ok: true } | { ok: false; message: string };
