import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '../../src/domain/json';
import { catalogTool, hangingInvoke, snapshotOf, TestBackendServer, waitUntil } from '../support/test-backend';
import { buildStdioAgentctl, stdioAgentctlEnv } from './stdio-agentctl';
import { CLIENT_KINDS, connectSdkClient, EXPECTED_REVISION, type SdkClient } from './sdk-clients';

const ADD_TAG = 'kandev_acme_tools_add_tag';
const addTag = catalogTool('acme.tools', 'add_tag');
const removeTag = catalogTool('acme.tools', 'remove_tag');

const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

/** The scenario matrix over stdio: each official client kind against its own `agentctl --stdio` process. */
describe('MCP over stdio (real agentctl processes), every official client kind', () => {
  let dir: string;
  let args: string[];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolport-stdio-matrix-'));
    args = await buildStdioAgentctl(join(dir, 'stdio-agentctl.js'));
    writeFileSync(join(dir, 'snapshot.json'), JSON.stringify(snapshotOf([addTag], 1)));
  }, 30_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe.each(CLIENT_KINDS)('%s', (kind) => {
    let backend: TestBackendServer;
    let client: SdkClient;
    beforeAll(async () => {
      backend = await TestBackendServer.start();
      backend.backend.catalog = snapshotOf([addTag], 1);
      client = await connectSdkClient(kind, {
        stdio: {
          command: process.execPath,
          args,
          cwd: dir,
          env: stdioAgentctlEnv(backend, join(dir, 'snapshot.json')),
        },
      });
    }, 30_000);
    afterAll(async () => {
      await client?.close();
      // The client closing stdin ends the agentctl; its link going away shows it exited.
      await waitUntil(() => backend.linkCount() === 0, 5000, 'the agentctl to exit');
      await backend?.stop();
    });

    /** PUTs to every agentctl that said hello (v2 auto probes with a short-lived sibling first). */
    async function put(snapshot: unknown): Promise<void> {
      const urls = [...new Set(backend.backend.hellos.map((hello) => hello.controlUrl))];
      const answers = await Promise.all(
        urls.map((url) =>
          fetch(`${url}/api/v1/mcp/plugin-tools`, {
            method: 'PUT',
            headers: { authorization: 'Bearer control', 'content-type': 'application/json' },
            body: JSON.stringify(snapshot),
          }).then(
            (response) => response.status,
            () => 0,
          ),
        ),
      );
      expect(answers).toContain(200);
    }

    it('lists and calls in the revision it negotiated', async () => {
      expect(client.revision()).toBe(EXPECTED_REVISION[kind]);
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(['get_task_context', ADD_TAG]);
      await waitUntil(() => backend.backend.pulls > 0, 5000, 'the backend link');
      expect(await client.callTool(ADD_TAG, { value: 'v' })).toMatchObject({ isError: false, content: [{ type: 'text', text: '{"value":"v"}' }] });
      const unknown = (await client.callTool('kandev_nope_run').catch((error: unknown) => error)) as { code?: number; message: string };
      expect(unknown.code).toBe(-32602);
      expect(unknown.message).toMatch(/^(MCP error -32602: )?Unknown tool: kandev_nope_run$/);
    });

    it('hears exactly one list_changed per enable and per disable', async () => {
      await waitUntil(() => backend.backend.hellos.length > 0, 5000, 'the hello');
      await put(snapshotOf([addTag, removeTag], 2));
      await waitUntil(() => client.listChanged() === 1, 2000, 'list_changed after enable');
      expect((await client.listTools()).map((tool) => tool.name)).toContain('kandev_acme_tools_remove_tag');
      await put(snapshotOf([addTag, removeTag], 3));
      await settle();
      expect(client.listChanged()).toBe(1);
      await put(snapshotOf([addTag], 4));
      await waitUntil(() => client.listChanged() === 2, 2000, 'list_changed after disable');
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(['get_task_context', ADD_TAG]);
      await settle();
      expect(client.listChanged()).toBe(2);
    });

    it('cancels the backend call within 1 s when the client aborts it', async () => {
      backend.backend.onInvoke = hangingInvoke;
      const abort = new AbortController();
      const before = backend.backend.cancelled.length;
      const call = client.callTool(ADD_TAG, { value: 'x' }, abort.signal).catch((error: unknown) => error);
      await waitUntil(() => backend.backend.invokes.length === 2, 2000, 'the invoke at the backend');
      const started = Date.now();
      abort.abort();
      await waitUntil(() => backend.backend.cancelled.length === before + 1, 1000, 'the cancel frame');
      expect(Date.now() - started).toBeLessThan(1000);
      await call;
    });

    it("answers a plugin's content blocks verbatim", async () => {
      const content: JsonObject[] = [
        { type: 'text', text: 'a chart' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///tmp/report.txt', name: 'report.txt' },
      ];
      backend.backend.onInvoke = async () => ({ invocationId: 'i-c', text: 'a chart', structuredContent: null, isError: false, content });
      expect((await client.callTool(ADD_TAG, { value: 'c' })).content).toEqual(content);
    });
  });
});
