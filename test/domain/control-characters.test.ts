import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import { terminalSafe } from '../../src/adapters/cli/terminal-safe';
import { escapeControlCharacters, hasControlCharacters } from '../../src/domain/control-characters';
import type { JsonObject } from '../../src/domain/json';
import { validateManifest } from '../../src/domain/manifest-validation';

const options = { schemas: new AjvSchemaCompiler(), toolportVersion: '1.4.0' };
const ESC = '\u001b';
/** What a hostile package writes: a title change, a colour, a cursor move and a line overwritten. */
const HOSTILE = `ok${ESC}]0;pwned\u0007 ${ESC}[31mred${ESC}[0m${ESC}[2A\rforged\u009b1m`;

function manifest(overrides: JsonObject = {}, tool: JsonObject = {}): JsonObject {
  return {
    api_version: 1,
    id: 'acme.tools',
    version: '1.2.0',
    runtime: { type: 'binary', executables: { any: 'bin/plugin' } },
    agent_tools: [{ name: 'add_tag', description: 'Adds a tag', surfaces: ['kanban-task'], input_schema: { type: 'object' }, ...tool }],
    ...overrides,
  };
}

/** Issue 25: text from packages and plugins never reaches a terminal as control sequences. */
describe('control characters', () => {
  it('are escaped as \\u00XX, C0, DEL and C1 alike, keeping tab and line feed', () => {
    expect(escapeControlCharacters(HOSTILE)).toBe('ok\\u001b]0;pwned\\u0007 \\u001b[31mred\\u001b[0m\\u001b[2A\\u000dforged\\u009b1m');
    expect(escapeControlCharacters('a\tb\nc\u007fé')).toBe('a\tb\nc\\u007fé');
    expect(hasControlCharacters('plain text\nwith\ttabs, é and 😀')).toBe(false);
    expect(hasControlCharacters(HOSTILE)).toBe(true);
  });

  it('leave JSON output valid and its strings as they were', () => {
    const json = `${JSON.stringify({ message: HOSTILE })}\n`;
    const printed: string[] = [];
    terminalSafe({ env: {}, stdout: (text) => printed.push(text), stderr: () => undefined }).stdout(json);
    expect(hasControlCharacters(printed[0])).toBe(false);
    expect(JSON.parse(printed[0])).toEqual({ message: HOSTILE });
  });

  it("are escaped on both of the CLI's streams", () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = terminalSafe({ env: {}, stdout: (text) => out.push(text), stderr: (text) => err.push(text) });
    io.stdout(`${HOSTILE}\n`);
    io.stderr(`${HOSTILE}\n`);
    expect([...out, ...err].some(hasControlCharacters)).toBe(false);
  });

  it.each([
    ['display_name', manifest({ display_name: HOSTILE })],
    ['description', manifest({ description: HOSTILE })],
    ['agent_tools[0].title', manifest({}, { title: `Title${ESC}[2J` })],
    ['agent_tools[0].description', manifest({}, { description: `Adds a tag\r\u0085` })],
  ])('are refused in the manifest text field %s, naming it', (path, value) => {
    const result = validateManifest(value, options);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.violations).toContainEqual({ path, message: 'must not contain control characters (only tab and line feed are allowed)' });
  });

  it('are not a reason to refuse tabs and line breaks in a description', () => {
    expect(validateManifest(manifest({ description: 'Line one\n\tLine two\n' }, { description: 'Adds\na tag' }), options).ok).toBe(true);
  });
});
