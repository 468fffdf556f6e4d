import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { JsonObject } from '../../domain/json';
import { jsonText } from '../../domain/json-text';
import { SchemaCompiler, type CompiledSchema, type SchemaCheck, type SchemaIssue } from '../../domain/schema-compiler';
import { linearRegExp } from './linear-regexp';
import { metaCheckable } from './meta-checkable';

type Draft = '2020-12' | 'draft-07';
type Compilation = { ok: true; schema: CompiledSchema } | { ok: false; message: string };

const DRAFT_07_URI = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020_URI = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
/**
 * Compiled validators kept, least recently used going first: more than every schema of a
 * 200-plugin catalog (3,200 tools, some with two schemas).
 */
const CACHE_LIMIT = 10_000;
const MESSAGE_LIMIT = 300;

/**
 * JSON Schema compilation with ajv (docs/plugin-protocol.md §2): draft 2020-12 by default, draft-07 when
 * `$schema` names it, any other `$schema` refused; `strict: false`, all errors, ajv-formats
 * with unknown formats ignored, no remote `$ref` (no loadSchema), and `pattern` matched in
 * linear time (RE2 syntax: a pattern with lookaround or backreferences does not compile). Compiled validators
 * are cached per schema, keyed by its compact JSON text.
 */
export class AjvSchemaCompiler extends SchemaCompiler {
  private readonly engines: Record<Draft, Ajv>;
  private readonly cache = new Map<string, Compilation>();
  /** Schemas vouched for by their meta-schema (true) or found not to compile (a message). */
  private readonly checks = new Map<string, true | string>();

  constructor() {
    super();
    // logger: false keeps ajv's "unknown format ignored" warnings off stdout (stdio MCP);
    // patterns run on RE2's linear-time engine (see linear-regexp.ts).
    const options = { strict: false, allErrors: true, logger: false as const, code: { regExp: linearRegExp } };
    this.engines = { '2020-12': new Ajv2020(options), 'draft-07': new Ajv(options) };
    addFormats(this.engines['2020-12']);
    addFormats(this.engines['draft-07']);
  }

  compile(schema: JsonObject): Compilation {
    let key: string;
    try {
      key = jsonText(schema);
    } catch (error) {
      return { ok: false, message: `is not JSON: ${messageOf(error)}` };
    }
    return this.compileKeyed(key, schema);
  }

  /**
   * Compiling costs 1–3 ms a schema; validating it against its draft's meta-schema costs a
   * few µs. A schema the meta-schema can vouch for (see metaCheckable) is only validated, and
   * compiled on its first use; any other is compiled now. Same answers as compile().
   */
  override check(schema: JsonObject): SchemaCheck {
    let key: string;
    try {
      key = jsonText(schema);
    } catch (error) {
      return { ok: false, message: `is not JSON: ${messageOf(error)}` };
    }
    const known = this.checks.get(key) ?? this.cache.get(key);
    if (known === true) return { ok: true };
    if (typeof known === 'string') return { ok: false, message: known };
    if (known !== undefined) return known.ok ? { ok: true } : { ok: false, message: known.message };
    const draft = draftOf(schema.$schema);
    const { $schema: _ignored, ...body } = schema;
    if (draft === undefined || !metaCheckable(body)) {
      const compiled = this.compileKeyed(key, schema);
      return compiled.ok ? { ok: true } : { ok: false, message: compiled.message };
    }
    const engine = this.engines[draft];
    const valid = engine.validateSchema(body) as boolean;
    // The message compile() gives for a schema its meta-schema refuses.
    const verdict = valid ? true : truncate(`schema is invalid: ${engine.errorsText(engine.errors)}`);
    remember(this.checks, key, verdict);
    return verdict === true ? { ok: true } : { ok: false, message: verdict };
  }

  private compileKeyed(key: string, schema: JsonObject): Compilation {
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      // Least recently used goes first: a hit moves to the back.
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const compilation = this.compileFresh(schema);
    remember(this.cache, key, compilation);
    return compilation;
  }

  private compileFresh(schema: JsonObject): Compilation {
    const draft = draftOf(schema.$schema);
    if (draft === undefined) {
      return { ok: false, message: `unsupported $schema ${JSON.stringify(schema.$schema)} (use draft 2020-12 or draft-07)` };
    }
    const engine = this.engines[draft];
    // The engine is chosen by $schema already; compiling without it spares ajv a meta-schema
    // lookup for spellings it does not register (https, no trailing #). The declared schema
    // itself is left untouched.
    const { $schema: _ignored, ...body } = schema;
    let validate: ValidateFunction;
    try {
      validate = engine.compile(body);
    } catch (error) {
      return { ok: false, message: truncate(messageOf(error)) };
    } finally {
      // Forget the schema's $id so two plugins may reuse one $id with different contents.
      removeQuietly(engine, body);
    }
    return { ok: true, schema: { validate: (value) => issuesOf(validate, value) } };
  }
}

function remember<T>(cache: Map<string, T>, key: string, value: T): void {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
}

function draftOf(uri: unknown): Draft | undefined {
  if (uri === undefined) return '2020-12';
  if (typeof uri !== 'string') return undefined;
  if (DRAFT_07_URI.test(uri)) return 'draft-07';
  if (DRAFT_2020_URI.test(uri)) return '2020-12';
  return undefined;
}

function issuesOf(validate: ValidateFunction, value: unknown): SchemaIssue[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => {
    const issue: SchemaIssue = { instancePath: error.instancePath, message: error.message ?? `must pass "${error.keyword}"` };
    const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown };
    if (error.keyword === 'required' && typeof params.missingProperty === 'string') issue.missingProperty = params.missingProperty;
    if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') issue.extraProperty = params.additionalProperty;
    return issue;
  });
}

function removeQuietly(engine: Ajv, schema: object): void {
  try {
    engine.removeSchema(schema);
  } catch {
    // Nothing was registered for it: nothing to forget.
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function truncate(text: string): string {
  return text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT)}…` : text;
}
