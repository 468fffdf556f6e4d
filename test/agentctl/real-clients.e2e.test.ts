import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { catalogTool, snapshotOf, waitUntil } from '../support/test-backend';
import { AgentctlHarness, MCP_TOKEN } from './agentctl-harness';
import { ClientProcess, runCli } from './client-process';

// Each test starts one or two client programs (Inspector, mcp-remote, a library driver) of
// 1–2 s each on a quiet machine and several times that on a loaded one: jest's 5 s default
// timed the machine, not the agentctl (the hop itself is milliseconds).
jest.setTimeout(30_000);

const ROOT = join(__dirname, '..', '..');
const MODULES = join(ROOT, 'node_modules');
const DRIVERS = join(__dirname, 'fixtures', 'clients');
const ADD_TAG = 'kandev_acme_tools_add_tag';
const REMOVE_TAG = 'kandev_acme_tools_remove_tag';
const addTag = catalogTool('acme.tools', 'add_tag');
const removeTag = catalogTool('acme.tools', 'remove_tag');

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/** The JSON document a CLI printed (after any banner lines). */
function jsonOutput(stdout: string): any {
  return JSON.parse(stdout.slice(stdout.indexOf('{')));
}

/**
 * The clients people use, against one agentctl session: each lists, calls and, where it
 * surfaces them, hears exactly one change notification per disable and per enable. Which era
 * each spoke shows in whether it opened a 2025 session.
 */
describe('real MCP clients against one agentctl session', () => {
  let harness: AgentctlHarness;
  let revision = 1;
  let enabled = true;
  let home: string;
  const sessionsOpened = () => harness.logger.withMessage('MCP session opened').length;

  /** Disables (false) or enables (true) the remove_tag tool's plugin, as the backend would push it. */
  async function setEnabled(on: boolean): Promise<void> {
    const answer = await harness.put(snapshotOf(on ? [addTag, removeTag] : [addTag], ++revision));
    expect(answer.body.outcome).toBe('applied');
    enabled = on;
  }

  // Every test starts from both tools listed, whatever the one before left.
  beforeEach(async () => {
    if (!enabled) await setEnabled(true);
  });

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'toolport-clients-'));
    harness = await AgentctlHarness.start({ launchSnapshot: snapshotOf([addTag, removeTag], 1) });
    harness.backend.backend.catalog = snapshotOf([addTag, removeTag], 1);
    await harness.linked();
  });
  afterAll(async () => {
    await harness.close();
    rmSync(home, { recursive: true, force: true });
  });

  describe.each([
    ['Inspector CLI v1 (1.0.3)', 'legacy', [join(MODULES, '@modelcontextprotocol/inspector-cli/build/cli.js'), '--cli', '--transport', 'http']],
    [
      'Inspector v2 --cli, legacy',
      'legacy',
      [join(MODULES, '@modelcontextprotocol/inspector/clients/launcher/build/index.js'), '--cli', '--protocol-era', 'legacy', '--format', 'json'],
    ],
    [
      'Inspector v2 --cli, modern',
      'modern',
      [join(MODULES, '@modelcontextprotocol/inspector/clients/launcher/build/index.js'), '--cli', '--protocol-era', 'modern', '--format', 'json'],
    ],
  ] as const)('%s', (_name, era, command) => {
    // inspector-cli 1.0.3 needs a working folder whose parent has a package.json.
    const run = (...args: string[]) =>
      runCli([...command, harness.mcpUrl, '--header', `Authorization: Bearer ${MCP_TOKEN}`, ...args], { cwd: join(ROOT, 'test'), env: { HOME: home } }).then(
        jsonOutput,
      );
    const unwrap = (output: any) => output.result ?? output;

    it('lists and calls', async () => {
      const sessionsBefore = sessionsOpened();
      const listed = unwrap(await run('--method', 'tools/list'));
      expect(listed.tools.map((tool: { name: string }) => tool.name)).toEqual(['get_task_context', ADD_TAG, REMOVE_TAG]);
      const called = unwrap(await run('--method', 'tools/call', '--tool-name', ADD_TAG, '--tool-arg', 'value=cli'));
      expect(called).toMatchObject({ isError: false, content: [{ type: 'text', text: '{"value":"cli"}' }] });
      expect(sessionsOpened() - sessionsBefore).toBe(era === 'legacy' ? 2 : 0);
    });
  });

  it('mcp-remote proxies list, call and exactly one list_changed per disable and enable', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      // The token stays out of the command line: mcp-remote expands ${AUTH_HEADER} itself.
      args: [join(MODULES, 'mcp-remote/dist/proxy.js'), harness.mcpUrl, '--header', 'Authorization:${AUTH_HEADER}'],
      env: { PATH: process.env.PATH ?? '', HOME: home, MCP_REMOTE_CONFIG_DIR: join(home, 'mcp-auth'), AUTH_HEADER: `Bearer ${MCP_TOKEN}` },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'agent-behind-mcp-remote', version: '1.0.0' });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['get_task_context', ADD_TAG, REMOVE_TAG]);
      expect(await client.callTool({ name: ADD_TAG, arguments: { value: 'remote' } })).toMatchObject({
        isError: false,
        content: [{ type: 'text', text: '{"value":"remote"}' }],
      });
      // Whether or not mcp-remote has opened the session's listening stream yet, the change
      // reaches it exactly once (a stream opened after a change gets one catch-up).
      await setEnabled(false);
      await waitUntil(() => changes === 1, 3000, 'list_changed after disable');
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['get_task_context', ADD_TAG]);
      await setEnabled(true);
      await waitUntil(() => changes === 2, 3000, 'list_changed after enable');
      await settle();
      expect(changes).toBe(2);
    } finally {
      await client.close();
    }
  });

  describe.each([
    ['Vercel AI SDK (@ai-sdk/mcp)', 'ai-sdk.mjs', 'modern', false],
    ["LangChain's adapters (@langchain/mcp-adapters)", 'langchain.mjs', 'legacy', true],
    ["Mastra's client (@mastra/mcp)", 'mastra.mjs', 'modern', true],
  ] as const)('%s', (_name, script, era, surfacesChanges) => {
    let driver: ClientProcess | undefined;
    afterEach(async () => {
      await driver?.stop();
      driver = undefined;
    });

    it(`lists, calls${surfacesChanges ? ' and hears exactly one change per disable and enable' : ' and sees each disable and enable'}`, async () => {
      const sessionsBefore = sessionsOpened();
      driver = await ClientProcess.start(join(DRIVERS, script), { MCP_URL: harness.mcpUrl, MCP_TOKEN, NODE_PATH: MODULES, HOME: home });
      expect(await driver.send('list')).toEqual({ tools: ['get_task_context', ADD_TAG, REMOVE_TAG] });
      const called = await driver.send(`call ${ADD_TAG} {"value":"lib"}`);
      expect(JSON.stringify(called)).toContain('{\\"value\\":\\"lib\\"}');
      await settle();
      await setEnabled(false);
      if (surfacesChanges) await waitUntil(() => driver!.changed() === 1, 3000, 'the change after disable');
      expect(await driver.send('list')).toEqual({ tools: ['get_task_context', ADD_TAG] });
      await setEnabled(true);
      if (surfacesChanges) await waitUntil(() => driver!.changed() === 2, 3000, 'the change after enable');
      expect(await driver.send('list')).toEqual({ tools: ['get_task_context', ADD_TAG, REMOVE_TAG] });
      await settle();
      expect(driver.changed()).toBe(surfacesChanges ? 2 : 0);
      expect(sessionsOpened() - sessionsBefore > 0).toBe(era === 'legacy');
    });
  });
});
