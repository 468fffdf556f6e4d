import process from 'node:process';
import type { ErrorObject } from 'ajv';

/**
 * What the MCP SDK's `@modelcontextprotocol/server/_shims` gives its Node build, for the
 * standalone agentctl file (scripts/build-agentctl.js puts this module in its place). The
 * SDK's own carries a whole copy of ajv (draft-07, 2019-09 and 2020-12 with ajv-formats),
 * evaluated as soon as the SDK is imported, beside the ajv this project already bundles;
 * this one checks with that ajv, loaded on first use (bench/PROFILE.md §7).
 *
 * An agentctl never has the SDK check a JSON Schema (it sends no elicitation request and
 * declares no schema-typed tool), so the validator is here for the SDK's completeness. Like the
 * SDK's default it takes a schema's dialect from `$schema` (draft-07 or draft-06 with ajv's
 * classic engine, anything else with its 2020-12 one), checks formats, not the schema itself,
 * and reports every error.
 */
export class DefaultJsonSchemaValidator {
  private engines: { draft7?: Engine; modern?: Engine } = {};

  getValidator<T>(schema: Record<string, unknown>): (input: unknown) => JsonSchemaValidatorResult<T> {
    const engine = this.engineFor(schema);
    const id = typeof schema.$id === 'string' ? schema.$id : undefined;
    const validate = (id === undefined ? undefined : engine.getSchema(id)) ?? engine.compile(schema);
    return (input) =>
      validate(input)
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: engine.errorsText(validate.errors) };
  }

  private engineFor(schema: Record<string, unknown>): Engine {
    const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
    if (/draft-0[67]\/schema/.test(declared)) return (this.engines.draft7 ??= engine('ajv'));
    return (this.engines.modern ??= engine('ajv/dist/2020'));
  }
}

export type JsonSchemaValidatorResult<T> = { valid: true; data: T; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };

interface CompiledCheck {
  (input: unknown): boolean;
  errors?: ErrorObject[] | null;
}

interface Engine {
  compile(schema: object): CompiledCheck;
  getSchema(id: string): CompiledCheck | undefined;
  errorsText(errors?: ErrorObject[] | null): string;
}

function engine(module: 'ajv' | 'ajv/dist/2020'): Engine {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const Ajv = (module === 'ajv' ? require('ajv') : require('ajv/dist/2020')) as { default: new (options: object) => Engine };
  const addFormats = (require('ajv-formats') as { default: (ajv: Engine) => void }).default;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const ajv = new Ajv.default({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

export { process };
