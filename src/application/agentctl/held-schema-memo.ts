import type { JsonObject } from '../../domain/json';
import { jsonText } from '../../domain/json-text';
import { SchemaCompiler, type SchemaCheck } from '../../domain/schema-compiler';

type Compilation = ReturnType<SchemaCompiler['compile']>;

/**
 * Remembers the schema checks of the snapshot agentctl holds, so re-checking a catalog whose
 * schemas mostly did not change costs a lookup per schema text, whatever the size of the
 * underlying compiler's own caches. Memory stays bounded by the held snapshot. Compiling
 * (on a tool's first call) goes to the underlying compiler, which caches validators.
 */
export class HeldSchemaMemo extends SchemaCompiler {
  private held = new Map<string, SchemaCheck>();
  private checking: Map<string, SchemaCheck> | null = null;

  constructor(private readonly inner: SchemaCompiler) {
    super();
  }

  compile(schema: JsonObject): Compilation {
    return this.inner.compile(schema);
  }

  override check(schema: JsonObject): SchemaCheck {
    let key: string;
    try {
      key = jsonText(schema);
    } catch {
      return this.inner.check(schema);
    }
    const checked = this.checking?.get(key) ?? this.held.get(key) ?? this.inner.check(schema);
    this.checking?.set(key, checked);
    return checked;
  }

  /** Starts recording the schemas a snapshot check looks at. */
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
