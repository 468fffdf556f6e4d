import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { connectSdkClient, type ClientKind, type SdkClient } from '../../agentctl/sdk-clients';
import { eventually } from '../../support/eventually';
import { writeProbePlugin } from '../../support/packages/probe-plugin';
import { BackendWorld } from '../../support/processes/backend-world';
import { killMentioning, waitForNoProcesses } from '../../support/processes/process-sweep';
import { AGENTCTL_BUNDLE, REPO_ROOT } from '../../support/processes/toolport-paths';

jest.setTimeout(60_000);

const ADD_TAG = 'kandev_e2e_lone_add_tag';

/** Folders named node_modules in `dir` or any folder above it. */
function nodeModulesUp(dir: string): string[] {
  const found: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'node_modules'))) found.push(join(at, 'node_modules'));
    if (dirname(at) === at) return found;
  }
}

/**
 * docs/agentctl.md "An agentctl in the agent's container": the one file `npm run build`
 * writes, dist/agentctl.js, copied alone into an empty folder with no node_modules on its way
 * up, runs with nothing but node: it links to a real backend and serves both MCP eras over
 * HTTP and over stdio to the official SDK clients, which list and call a plugin's tool.
 */
describe('the standalone agentctl file, alone in an empty folder', () => {
  let world: BackendWorld;
  let lone: string;
  let file: string;

  beforeAll(async () => {
    lone = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-lone-')));
    file = join(lone, 'agentctl.js');
    copyFileSync(AGENTCTL_BUNDLE, file);
    world = new BackendWorld();
    await world.start();
    await world.install(writeProbePlugin(join(world.root, 'pkg'), 'e2e.lone', ['add_tag']));
  });

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
    // The stdio agentctls (their command lines name the file): each exits when its client closes.
    const left = await waitForNoProcesses(lone);
    killMentioning(lone);
    await waitForNoProcesses(lone);
    rmSync(lone, { recursive: true, force: true });
    expect(left).toEqual([]);
  }, 30_000);

  it('is the only file in its folder, with no node_modules there or above, and knows its version', () => {
    expect(readdirSync(lone)).toEqual(['agentctl.js']);
    expect(nodeModulesUp(lone)).toEqual([]);
    // No package.json beside it: the build wrote the version in.
    const printed = execFileSync(process.execPath, [file, '--version'], { cwd: lone, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
    expect(printed).toBe(`${(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);
  });

  async function listsAndCalls(client: SdkClient, tag: string): Promise<void> {
    await eventually(async () => (await client.listTools()).some((tool) => tool.name === ADD_TAG), 10_000, 'the plugin tool over the link');
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['get_task_context', ADD_TAG]);
    const answer = await client.callTool(ADD_TAG, { tag });
    expect(answer.isError).not.toBe(true);
    expect(answer.content).toEqual([{ type: 'text', text: `tagged ${tag}` }]);
  }

  it('over HTTP: a 2025 client and a 2026-07-28 client list and call through one agentctl', async () => {
    const started = await world.session('kanban-task', 'task-lone-http', false);
    const agentctl = await world.startAgentctl({
      command: [file],
      cwd: lone,
      backendUrl: started.agentctl!.backend_url,
      tokens: { session: started.agentctl!.session_token, mcp: 'lone-mcp', control: 'lone-control' },
    });
    const kinds: ClientKind[] = ['v1', 'v2 pinned 2026-07-28'];
    for (const kind of kinds) {
      const client = await connectSdkClient(kind, { http: agentctl.mcpUrl, token: 'lone-mcp' });
      try {
        expect(client.revision()).toBe(kind === 'v1' ? '2025-11-25' : '2026-07-28');
        await listsAndCalls(client, `http-${kind}`);
      } finally {
        await client.close();
      }
    }
    // Nothing it wrote says a module was missing or a stack trace escaped.
    expect(agentctl.stderr()).not.toMatch(/Cannot find module|MODULE_NOT_FOUND|\n\s+at /);
  });

  it.each<ClientKind>(['v1', 'v2 pinned 2026-07-28'])('over stdio: a %s client lists and calls', async (kind) => {
    const started = await world.session('kanban-task', `task-lone-stdio-${kind.replace(/\W+/g, '-')}`, false);
    const client = await connectSdkClient(kind, {
      stdio: {
        command: process.execPath,
        args: [file, '--stdio', '--backend-url', started.agentctl!.backend_url],
        cwd: lone,
        // Nothing of this checkout's: no NODE_PATH, no NODE_OPTIONS.
        env: { PATH: process.env.PATH ?? '', TOOLPORT_SESSION_TOKEN: started.agentctl!.session_token },
      },
    });
    try {
      await listsAndCalls(client, `stdio-${kind}`);
    } finally {
      await client.close();
    }
  });
});
