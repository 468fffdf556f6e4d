import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import { checkArguments } from '../../src/domain/argument-check';
import { InvocationError } from '../../src/domain/errors';
import { checkResult, decideInvocation, type InvocationRequest, type PluginResult } from '../../src/domain/invocation-policy';
import type { AgentToolDeclaration } from '../../src/domain/manifest';
import { DEFAULT_POLICY, policyOf } from '../../src/domain/scopes';
import { record, tool } from './fixtures';

const schemas = new AjvSchemaCompiler();
const SECRET = 'hunter2-secret-value';

const setTag = tool({
  name: 'y',
  surfaces: ['kanban-task'],
  input_schema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] },
});

function request(overrides: Partial<InvocationRequest> = {}): InvocationRequest {
  return {
    session: { task_id: 't1', session_id: 's1', workspace_id: 'w1', surface: 'kanban-task', profile: 'default', status: 'live' },
    policy: DEFAULT_POLICY,
    plugin: record('x', [setTag]),
    pluginId: 'x',
    localName: 'y',
    arguments: { value: 'ok' },
    inFlight: 0,
    maxInFlight: 32,
    ...overrides,
  };
}

function refusal(req: InvocationRequest): InvocationError {
  const decision = decideInvocation(req, schemas);
  if (decision.allowed) throw new Error('expected a refusal');
  return decision.error;
}

describe('decideInvocation', () => {
  it('allows a valid call and hands back the declaration and the arguments', () => {
    expect(decideInvocation(request(), schemas)).toEqual({ allowed: true, declaration: setTag, arguments: { value: 'ok' } });
  });

  const refusals: Array<[string, Partial<InvocationRequest>, string, boolean]> = [
    ['session starting', { session: { ...request().session, status: 'starting' } }, 'SESSION_NOT_LIVE', false],
    ['session dead', { session: { ...request().session, status: 'dead' } }, 'SESSION_NOT_LIVE', false],
    ['session stopped', { session: { ...request().session, status: 'stopped' } }, 'SESSION_NOT_LIVE', false],
    ['plugin not installed', { plugin: undefined }, 'PLUGIN_NOT_ACTIVE', true],
    ['plugin disabled', { plugin: record('x', [setTag], { status: 'disabled' }) }, 'PLUGIN_NOT_ACTIVE', false],
    ['plugin in error', { plugin: record('x', [setTag], { status: 'error' }) }, 'PLUGIN_NOT_ACTIVE', false],
    ['plugin registered', { plugin: record('x', [setTag], { status: 'registered' }) }, 'PLUGIN_NOT_ACTIVE', false],
    ['tool not declared', { localName: 'z' }, 'TOOL_NOT_DECLARED', false],
    ['surface not allowed', { session: { ...request().session, surface: 'office-task' } }, 'SURFACE_NOT_ALLOWED', false],
    ['configuration surface', { session: { ...request().session, surface: 'configuration' } }, 'SURFACE_NOT_ALLOWED', false],
    ['plugin not enabled for the workspace', { policy: policyOf([['x', { workspaces: ['w2'], disabled_tools: {} }]], []) }, 'TOOL_NOT_ENABLED', false],
    ['tool disabled in the workspace', { policy: policyOf([['x', { workspaces: '*', disabled_tools: { w1: ['y'] } }]], []) }, 'TOOL_NOT_ENABLED', false],
    ['tool disabled everywhere', { policy: policyOf([['x', { workspaces: '*', disabled_tools: { '*': ['y'] } }]], []) }, 'TOOL_NOT_ENABLED', false],
    ['tool outside the profile', { policy: policyOf([], [{ name: 'default', include: ['other'], exclude: [] }]) }, 'TOOL_NOT_ENABLED', false],
    ['tool excluded by the profile', { policy: policyOf([], [{ name: 'default', include: ['*'], exclude: ['x'] }]) }, 'TOOL_NOT_ENABLED', false],
    ['profile that no longer exists', { session: { ...request().session, profile: 'gone' } }, 'TOOL_NOT_ENABLED', false],
    ['arguments invalid', { arguments: { value: 3 } }, 'INVALID_ARGUMENTS', false],
    ['arguments not an object', { arguments: ['value'] }, 'INVALID_ARGUMENTS', false],
    ['arguments a string', { arguments: 'value' }, 'INVALID_ARGUMENTS', false],
    ['arguments over 4 MiB of JSON', { arguments: { value: 'x'.repeat(4 * 1024 * 1024) } }, 'INVALID_ARGUMENTS', false],
    ['plugin at its in-flight cap', { inFlight: 32 }, 'PLUGIN_BUSY', false],
    ['plugin over its in-flight cap', { inFlight: 40, maxInFlight: 32 }, 'PLUGIN_BUSY', false],
    ['session at its share of the cap', { inFlight: 8, sessionInFlight: 8, sessionMaxInFlight: 8 }, 'PLUGIN_BUSY', false],
  ];

  it.each(refusals)('refuses when %s: [%s], plugin missing %s', (_label, overrides, code, missing) => {
    const error = refusal(request(overrides));
    expect(error).toBeInstanceOf(InvocationError);
    expect(error.code).toBe(code);
    expect(error.missing).toBe(missing);
  });

  it("allows one call below the cap, and one below the session's share", () => {
    expect(decideInvocation(request({ inFlight: 31 }), schemas).allowed).toBe(true);
    expect(decideInvocation(request({ inFlight: 20, sessionInFlight: 7, sessionMaxInFlight: 8 }), schemas).allowed).toBe(true);
  });

  it('checks in the §6 order: each check wins over every later one', () => {
    const everythingWrong: Partial<InvocationRequest> = {
      session: { ...request().session, status: 'dead', surface: 'office-task' },
      plugin: record('x', [setTag], { status: 'disabled' }),
      localName: 'z',
      arguments: 'bad',
      inFlight: 99,
      policy: policyOf([['x', { workspaces: [], disabled_tools: {} }]], []),
    };
    const order = ['SESSION_NOT_LIVE', 'PLUGIN_NOT_ACTIVE', 'TOOL_NOT_DECLARED', 'SURFACE_NOT_ALLOWED', 'TOOL_NOT_ENABLED', 'INVALID_ARGUMENTS', 'PLUGIN_BUSY'];
    const fixes: Array<Partial<InvocationRequest>> = [
      { session: { ...request().session, surface: 'office-task' } },
      { plugin: record('x', [setTag]) },
      { localName: 'y' },
      { session: request().session },
      { policy: DEFAULT_POLICY },
      { arguments: { value: 'ok' } },
    ];
    let current = request(everythingWrong);
    for (let step = 0; step < order.length; step++) {
      expect(refusal(current).code).toBe(order[step]);
      if (step < fixes.length) current = { ...current, ...fixes[step] };
    }
  });

  it('reads missing arguments (undefined or null) as {}', () => {
    const open = record('x', [tool({ name: 'y', input_schema: { type: 'object' } })]);
    expect(decideInvocation(request({ plugin: open, arguments: undefined }), schemas)).toMatchObject({ allowed: true, arguments: {} });
    expect(decideInvocation(request({ plugin: open, arguments: null }), schemas)).toMatchObject({ allowed: true, arguments: {} });
  });

  it('validates missing arguments against the schema as {}', () => {
    expect(refusal(request({ arguments: undefined })).message).toBe("kandev_x_y: arguments must have required property 'value'");
  });

  it('names the exposed tool and the failing location: kandev_x_y: /value must be string', () => {
    expect(refusal(request({ arguments: { value: 3 } }))).toMatchObject({ code: 'INVALID_ARGUMENTS', message: 'kandev_x_y: /value must be string' });
  });

  it('uses the prefix setting in the message', () => {
    expect(refusal(request({ prefix: 'acme', arguments: { value: 3 } })).message).toBe('acme_x_y: /value must be string');
  });

  it('never puts argument values in a message', () => {
    const strict = record('x', [
      tool({
        name: 'y',
        input_schema: {
          type: 'object',
          properties: { value: { type: 'integer' }, code: { enum: ['a'] }, mail: { type: 'string', format: 'email' } },
          additionalProperties: false,
        },
      }),
    ]);
    const error = refusal(request({ plugin: strict, arguments: { value: SECRET, code: SECRET, mail: SECRET, other: SECRET } }));
    expect(error.code).toBe('INVALID_ARGUMENTS');
    expect(error.message).not.toContain(SECRET);
    expect(error.message).toContain('/value must be integer');
  });

  it('never puts argument values in any refusal', () => {
    for (const [, overrides] of refusals) {
      expect(refusal(request({ arguments: { value: SECRET }, ...overrides })).message).not.toContain(SECRET);
    }
  });

  it('refuses a string argument for an object schema without echoing it', () => {
    expect(refusal(request({ arguments: SECRET })).message).toBe('kandev_x_y: arguments must be an object');
  });
});

describe('checkArguments', () => {
  it('shows at most five issues and counts the rest', () => {
    const properties = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`p${i}`, { type: 'string' }]));
    const args = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`p${i}`, i]));
    const check = checkArguments('kandev_x_y', { type: 'object', properties }, args, schemas);
    expect(!check.ok && check.error.message).toBe(
      'kandev_x_y: /p0 must be string; /p1 must be string; /p2 must be string; /p3 must be string; /p4 must be string (and 2 more)',
    );
  });
});

describe('checkResult', () => {
  const plain = tool({ name: 'plain' });
  const withOutput: AgentToolDeclaration = tool({
    name: 'typed',
    output_schema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
  });
  const result = (overrides: Partial<PluginResult> = {}): PluginResult => ({ text: 'done', structuredContentJson: '', isError: false, ...overrides });

  it('passes a plain text result', () => {
    expect(checkResult(result(), plain, schemas)).toEqual({ ok: true, text: 'done', structuredContent: null, isError: false });
  });

  it('parses structured content', () => {
    expect(checkResult(result({ structuredContentJson: '{"count":2}' }), withOutput, schemas)).toEqual({
      ok: true,
      text: 'done',
      structuredContent: { count: 2 },
      isError: false,
    });
  });

  it('passes a plugin’s own error result as is, even without the declared structured content', () => {
    expect(checkResult(result({ text: 'no such tag', isError: true }), withOutput, schemas)).toEqual({
      ok: true,
      text: 'no such tag',
      structuredContent: null,
      isError: true,
    });
    expect(checkResult(result({ text: 'partial', isError: true, structuredContentJson: '{"why":"x"}' }), withOutput, schemas)).toEqual({
      ok: true,
      text: 'partial',
      structuredContent: { why: 'x' },
      isError: true,
    });
  });

  it('accepts text + structured content of exactly 1048576 bytes', () => {
    const structured = '{"a":""}';
    const text = 'x'.repeat(1048576 - structured.length);
    expect(checkResult(result({ text, structuredContentJson: structured }), plain, schemas).ok).toBe(true);
  });

  const failures: Array<[string, PluginResult, AgentToolDeclaration, string]> = [
    ['empty text', result({ text: '' }), plain, 'BAD_RESULT'],
    ['blank text', result({ text: ' \n\t' }), plain, 'BAD_RESULT'],
    ['blank text on an error result', result({ text: ' ', isError: true }), plain, 'BAD_RESULT'],
    ['text over 1 MiB', result({ text: 'x'.repeat(1048577) }), plain, 'RESULT_TOO_LARGE'],
    ['text + structured over 1 MiB', result({ text: 'x'.repeat(1048576 - 8), structuredContentJson: '{"a":"b"}' }), plain, 'RESULT_TOO_LARGE'],
    ['multi-byte text over 1 MiB in bytes', result({ text: 'é'.repeat(524289) }), plain, 'RESULT_TOO_LARGE'],
    ['structured content not JSON', result({ structuredContentJson: '{nope' }), plain, 'BAD_RESULT'],
    ['structured content a list', result({ structuredContentJson: '[1]' }), plain, 'BAD_RESULT'],
    ['structured content null', result({ structuredContentJson: 'null' }), plain, 'BAD_RESULT'],
    ['no structured content with an output schema', result(), withOutput, 'BAD_RESULT'],
    ['non-conforming structured content', result({ structuredContentJson: '{"count":"two"}' }), withOutput, 'BAD_RESULT'],
  ];

  it.each(failures)('refuses %s', (_label, pluginResult, declaration, code) => {
    const check = checkResult(pluginResult, declaration, schemas);
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.error.code).toBe(code);
    }
  });

  describe('with content blocks', () => {
    const image = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
    const link = { type: 'resource_link', uri: 'file:///tmp/report.txt', name: 'report.txt' };
    const grpcContent = (text: string, ...blocks: object[]): string => JSON.stringify([{ type: 'text', text }, ...blocks]);

    it('passes the blocks on verbatim, in order, beside text and structured content', () => {
      const check = checkResult(result({ contentJson: grpcContent('done', image, link), structuredContentJson: '{"count":1}' }), withOutput, schemas);
      expect(check).toEqual({
        ok: true,
        text: 'done',
        structuredContent: { count: 1 },
        isError: false,
        content: [{ type: 'text', text: 'done' }, image, link],
      });
    });

    it('needs no text block when the result carries its blocks (an MCP server’s result)', () => {
      expect(checkResult(result({ text: '', contentJson: JSON.stringify([image]) }), plain, schemas)).toEqual({
        ok: true,
        text: '',
        structuredContent: null,
        isError: false,
        content: [image],
      });
    });

    it('still needs conforming structured content with an output schema', () => {
      const check = checkResult(result({ contentJson: grpcContent('done', image) }), withOutput, schemas);
      expect(!check.ok && check.error.code).toBe('BAD_RESULT');
    });

    it('counts text once when its block leads, so text + blocks + structured of exactly 1048576 bytes pass', () => {
      const blocks = JSON.stringify([image]);
      const structured = '{"count":1}';
      const text = 'x'.repeat(1048576 - blocks.length - structured.length);
      const check = checkResult(result({ text, contentJson: grpcContent(text, image), structuredContentJson: structured }), withOutput, schemas);
      expect(check.ok).toBe(true);
    });

    it('refuses text + blocks + structured one byte over 1 MiB with RESULT_TOO_LARGE', () => {
      const blocks = JSON.stringify([image]);
      const structured = '{"count":1}';
      const text = 'x'.repeat(1048577 - blocks.length - structured.length);
      const check = checkResult(result({ text, contentJson: grpcContent(text, image), structuredContentJson: structured }), withOutput, schemas);
      expect(!check.ok && check.error.code).toBe('RESULT_TOO_LARGE');
      expect(!check.ok && check.error.message).toBe('tool "typed" answered 1048577 bytes, more than 1048576');
    });

    it('counts every block, text blocks included, when none holds the text (an MCP server’s result)', () => {
      const big = { type: 'text', text: 'y'.repeat(600_000) };
      const check = checkResult(result({ text: 'summary', contentJson: JSON.stringify([big, big]) }), plain, schemas);
      expect(!check.ok && check.error.code).toBe('RESULT_TOO_LARGE');
    });

    it('counts a text that only joins its text blocks once, as the blocks (an MCP server’s result)', () => {
      const half = { type: 'text', text: 'y'.repeat(400_000) };
      const text = `${half.text}\n${half.text}`;
      expect(checkResult(result({ text, contentJson: JSON.stringify([half, half]) }), plain, schemas).ok).toBe(true);
    });

    it('refuses an oversized image on an error result too', () => {
      const huge = { ...image, data: 'A'.repeat(1048576) };
      const check = checkResult(result({ isError: true, contentJson: grpcContent('done', huge) }), plain, schemas);
      expect(!check.ok && check.error.code).toBe('RESULT_TOO_LARGE');
    });

    it.each([
      ['not JSON', '[{', 'content is not JSON'],
      ['not a list', '{}', 'content is not a JSON array of content blocks'],
      ['an unknown block type', '[{"type":"video"}]', 'content[0].type must be one of text, image, audio, resource_link, resource, not "video"'],
    ])('refuses content that is %s with BAD_RESULT naming why', (_label, contentJson, problem) => {
      const check = checkResult(result({ contentJson }), plain, schemas);
      expect(!check.ok && check.error.code).toBe('BAD_RESULT');
      expect(!check.ok && check.error.message).toBe(`tool "plain" answered content the agent cannot read: ${problem}`);
    });
  });

  it('names where the structured content fails, never its values', () => {
    const check = checkResult(result({ structuredContentJson: JSON.stringify({ count: SECRET }) }), withOutput, schemas);
    expect(!check.ok && check.error.message).toContain('/count must be integer');
    expect(!check.ok && check.error.message).not.toContain(SECRET);
  });
});
