import type { JsonObject } from '../../domain/json';
import { SchemaCompiler } from '../../domain/schema-compiler';

type Compilation = ReturnType<SchemaCompiler['compile']>;

/**
 * Keeps the compiled schemas of the snapshot agentctl holds, so re-checking a catalog whose
 * schemas mostly did not change costs a lookup per schema instead of a compile, whatever the
 * size of the underlying compiler's own cache. Memory stays bounded by the held snapshot.
 */
export class HeldSchemaMemo extends SchemaCompiler {
  private held = new Map<string, Compilation>();
  private checking: Map<string, Compilation> | null = null;

  constructor(private readonly inner: SchemaCompiler) {
    super();
  }

  compile(schema: JsonObject): Compilation {
    let key: string;
    try {
      key = JSON.stringify(schema);
    } catch {
      return this.inner.compile(schema);
    }
    const compiled = this.checking?.get(key) ?? this.held.get(key) ?? this.inner.compile(schema);
    this.checking?.set(key, compiled);
    return compiled;
  }

  /** Starts recording the schemas a snapshot check compiles. */
  beginCheck(): void {
    this.checking = new Map();
  }

  /** The checked snapshot is now held: its schemas replace the held set. */
  keepChecked(): void {
    if (this.checking) this.held = this.checking;
    this.checking = null;
  }

  /** The checked snapshot was not stored: the held set stays as it was. */
  dropChecked(): void {
    this.checking = null;
  }
}
