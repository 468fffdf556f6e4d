import { chmodSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { CLIENT_KINDS, connectSdkClient, type ClientKind, type SdkClient } from '../../agentctl/sdk-clients';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld, type StartedSession } from '../../support/processes/backend-world';
import { REPO_ROOT } from '../../support/processes/toolport-paths';

jest.setTimeout(20_000);

const IMAGE = { type: 'image', data: 'iVBORw0KGgoAAAANSUhEUg==', mimeType: 'image/png', annotations: { audience: ['user'] } };
const LINK = { type: 'resource_link', uri: 'file:///reports/weekly.txt', name: 'weekly.txt', mimeType: 'text/plain' };

/** The bytes the limit counts for both `huge` tools: their text, and their blocks' compact JSON after the text block. */
const HUGE_BYTES = 520 * 1024 + JSON.stringify([{ ...IMAGE, data: 'A'.repeat(520 * 1024) }]).length;

/** A plugin written with the SDK, answering content blocks the typed way (docs/plugin-protocol.md). */
const SDK_SOURCE = `
import { serve } from '@toolport/plugin-sdk';
const IMAGE = ${JSON.stringify(IMAGE)};
const LINK = ${JSON.stringify(LINK)};
void serve({
  tools: {
    chart: () => ({ text: 'a chart and its report', content: [IMAGE, LINK], structuredContent: { bars: 3 } }),
    huge: () => ({ text: 'x'.repeat(520 * 1024), content: [{ ...IMAGE, data: 'A'.repeat(520 * 1024) }] }),
    blank: () => ({ text: '', content: [IMAGE] }),
  },
});
`;

/** A Python plugin on the example's protocol module (examples/plugins/greeter-py), answering `content`. */
const PYTHON_MAIN = `#!/usr/bin/python3
import sys
sys.dont_write_bytecode = True
from toolport_plugin import serve  # noqa: E402
IMAGE = ${JSON.stringify(IMAGE)}
LINK = ${JSON.stringify(LINK)}
serve({"picture": lambda args, context: {"text": "a chart and its report", "content": [IMAGE, LINK], "structured_content": {"bars": 3}}})
`;

function writePythonPlugin(dir: string): string {
  const example = join(REPO_ROOT, 'examples', 'plugins', 'greeter-py');
  mkdirSync(dir, { recursive: true });
  cpSync(join(example, 'toolport_plugin.py'), join(dir, 'toolport_plugin.py'));
  cpSync(join(example, 'stubs'), join(dir, 'stubs'), { recursive: true });
  writeFileSync(join(dir, 'main.py'), PYTHON_MAIN);
  chmodSync(join(dir, 'main.py'), 0o755);
  const manifest = {
    api_version: 1,
    id: 'e2e.py-content',
    version: '1.0.0',
    runtime: { type: 'binary', executables: { any: 'main.py' } },
    agent_tools: [tool('picture')],
  };
  writeFileSync(join(dir, 'manifest.yaml'), stringify(manifest));
  return dir;
}

const tool = (name: string) => ({ name, description: `The ${name} tool.`, surfaces: ['kanban-task'], input_schema: { type: 'object' } });

/**
 * Content blocks end to end (docs/invocation.md): a plugin's blocks reach every official client
 * verbatim after its text block, through the backend, the link and agentctl; a result over the
 * 1 MiB limit counting its blocks, or blocks the agent cannot read, end in their codes.
 */
describe('backend: content blocks a plugin answers', () => {
  const world = new BackendWorld(['--restart-backoff-ms', '200', '--plugin-start-timeout-ms', '10000']);
  let session: StartedSession;
  const clients = new Map<ClientKind, SdkClient>();

  beforeAll(async () => {
    await world.start();
    await world.install(
      writePluginPackage(join(world.root, 'pkg-sdk'), {
        manifest: { api_version: 1, id: 'e2e.pictures', version: '1.0.0', agent_tools: [tool('chart'), tool('huge'), tool('blank')] },
        source: SDK_SOURCE,
      }),
    );
    await world.install(
      writePluginPackage(join(world.root, 'pkg-raw'), {
        manifest: { api_version: 1, id: 'e2e.raw-content', version: '1.0.0', agent_tools: [tool('picture'), tool('unknown_block'), tool('huge')] },
        source: `require('./test/fixtures/plugins/content-plugin.js');`,
      }),
    );
    await world.install(writePythonPlugin(join(world.root, 'pkg-py')));
    session = await world.session('kanban-task');
    for (const kind of CLIENT_KINDS) clients.set(kind, await connectSdkClient(kind, { http: session.mcp!.url, token: session.mcp!.token }));
  }, 60_000);

  afterAll(async () => {
    for (const client of clients.values()) await client.close().catch(() => undefined);
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  const call = async (kind: ClientKind, name: string) => {
    const client = clients.get(kind)!;
    await client.listTools();
    const { content, structuredContent, isError } = await client.callTool(name, {});
    return { content, structuredContent, isError };
  };

  describe.each(CLIENT_KINDS)('official client %s', (kind) => {
    it("gets an SDK plugin's image and resource link verbatim after its text block, with its structured content", async () => {
      expect(await call(kind, 'kandev_e2e_pictures_chart')).toEqual({
        content: [{ type: 'text', text: 'a chart and its report' }, IMAGE, LINK],
        structuredContent: { bars: 3 },
        isError: false,
      });
    });

    it("gets a plugin's content_json blocks written without the SDK the same way", async () => {
      expect(await call(kind, 'kandev_e2e_raw_content_picture')).toEqual({
        content: [{ type: 'text', text: 'a chart and its report' }, IMAGE, LINK],
        structuredContent: { bars: 3 },
        isError: false,
      });
    });

    it("gets a Python plugin's content blocks the same way", async () => {
      expect(await call(kind, 'kandev_e2e_py_content_picture')).toEqual({
        content: [{ type: 'text', text: 'a chart and its report' }, IMAGE, LINK],
        structuredContent: { bars: 3 },
        isError: false,
      });
    });

    it.each([
      ['kandev_e2e_pictures_huge', 'RESULT_TOO_LARGE', `tool "huge" answered ${HUGE_BYTES} bytes, more than 1048576`],
      ['kandev_e2e_raw_content_huge', 'RESULT_TOO_LARGE', `tool "huge" answered ${HUGE_BYTES} bytes, more than 1048576`],
      ['kandev_e2e_pictures_blank', 'BAD_RESULT', 'e2e.pictures/blank answered content blocks without text'],
      [
        'kandev_e2e_raw_content_unknown_block',
        'BAD_RESULT',
        'e2e.raw-content/unknown_block answered content_json the agent cannot read: content[0].type must be one of text, image, audio, resource_link, resource, not "video"',
      ],
    ])('gets %s refused with its code', async (name, code, message) => {
      expect(await call(kind, name)).toEqual({ content: [{ type: 'text', text: `[${code}] ${message}` }], structuredContent: undefined, isError: true });
    });
  });
});
