import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { JsonObject } from '../../domain/json';
import { SchemaCompiler, type CompiledSchema, type SchemaIssue } from '../../domain/schema-compiler';

type Draft = '2020-12' | 'draft-07';
type Compilation = { ok: true; schema: CompiledSchema } | { ok: false; message: string };

const DRAFT_07_URI = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020_URI = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
/** Enough for every schema of 16 tools × 2 × many plugins; the oldest entry goes first. */
const CACHE_LIMIT = 2000;
const MESSAGE_LIMIT = 300;

/**
 * JSON Schema compilation with ajv (CONTRACT §1): draft 2020-12 by default, draft-07 when
 * `$schema` names it, any other `$schema` refused; `strict: false`, all errors, ajv-formats
 * with unknown formats ignored, and no remote `$ref` (no loadSchema). Compiled validators
 * are cached per schema, keyed by its compact JSON text.
 */
export class AjvSchemaCompiler extends SchemaCompiler {
  private readonly engines: Record<Draft, Ajv>;
  private readonly cache = new Map<string, Compilation>();

  constructor() {
    super();
    // logger: false keeps ajv's "unknown format ignored" warnings off stdout (stdio MCP).
    const options = { strict: false, allErrors: true, logger: false as const };
    this.engines = { '2020-12': new Ajv2020(options), 'draft-07': new Ajv(options) };
    addFormats(this.engines['2020-12']);
    addFormats(this.engines['draft-07']);
  }

  compile(schema: JsonObject): Compilation {
    let key: string;
    try {
      key = JSON.stringify(schema);
    } catch (error) {
      return { ok: false, message: `is not JSON: ${messageOf(error)}` };
    }
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const compilation = this.compileFresh(schema);
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, compilation);
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

function draftOf(uri: unknown): Draft | undefined {
  if (uri === undefined) return '2020-12';
  if (typeof uri !== 'string') return undefined;
  if (DRAFT_07_URI.test(uri)) return 'draft-07';
  if (DRAFT_2020_URI.test(uri)) return '2020-12';
  return undefined;
}

function issuesOf(validate: ValidateFunction, value: unknown): SchemaIssue[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => ({
    instancePath: error.instancePath,
    message: error.message ?? `must pass "${error.keyword}"`,
  }));
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
