import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogTool, snapshotOf } from '../support/test-backend';
import { AgentctlHarness, MCP_TOKEN } from './agentctl-harness';
import { BearerProxy } from './bearer-proxy';
import { runCli } from './client-process';

const ROOT = join(__dirname, '..', '..');

/** The server scenarios of the active suite a tools-only server can pass: all of them must. */
const TOOLS_ONLY = ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'];

/**
 * The rest, and why agentctl cannot pass them: they need a capability a tools-only server does
 * not have, or call the suite's own fixture tools by name (`test_simple_text`, `test_error_handling`…),
 * which agentctl never lists: its tool names are the §2 `kandev_<plugin>_<tool>` derivation.
 */
const NOT_APPLICABLE: Record<string, string> = {
  'logging-set-level': 'logging capability',
  'completion-complete': 'completions capability',
  'elicitation-sep1034-defaults': 'server-initiated elicitation',
  'elicitation-sep1330-enums': 'server-initiated elicitation',
  ...Object.fromEntries(['resources-list', 'resources-read-text', 'resources-read-binary', 'resources-templates-read', 'resources-subscribe', 'resources-unsubscribe'].map((s) => [s, 'resources capability'])),
  ...Object.fromEntries(['prompts-list', 'prompts-get-simple', 'prompts-get-with-args', 'prompts-get-embedded-resource', 'prompts-get-with-image'].map((s) => [s, 'prompts capability'])),
  ...Object.fromEntries(
    ['simple-text', 'image', 'audio', 'embedded-resource', 'mixed-content', 'with-logging', 'error', 'with-progress', 'sampling', 'elicitation'].map((s) => [`tools-call-${s}`, 'fixture tool names']),
  ),
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
  errorMessage?: string;
}

/** The official conformance runner (`@modelcontextprotocol/conformance`), its whole active server suite. */
describe('MCP conformance suite against an agentctl session', () => {
  let harness: AgentctlHarness;
  let proxy: BearerProxy;
  let output: string;
  beforeAll(async () => {
    harness = await AgentctlHarness.start({ launchSnapshot: snapshotOf([catalogTool('acme.tools', 'add_tag')], 1) });
    proxy = await BearerProxy.start(harness.mcpUrl, MCP_TOKEN);
    output = mkdtempSync(join(tmpdir(), 'toolport-conformance-'));
  });
  afterAll(async () => {
    await proxy.close();
    await harness.close();
    rmSync(output, { recursive: true, force: true });
  });

  it('passes every scenario a tools-only server can, and fails only the ones it cannot', async () => {
    // The runner exits non-zero when any scenario fails; the verdict is read from its results.
    await runCli(
      ['--import', join(ROOT, 'scripts/conformance/node20.mjs'), join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'), 'server', '--url', proxy.url, '-o', output],
      { cwd: ROOT, env: { HOME: output }, timeoutMs: 60_000 },
    ).catch(() => undefined);
    const results = new Map<string, Check[]>();
    for (const folder of readdirSync(output)) {
      const scenario = folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
      results.set(scenario, JSON.parse(readFileSync(join(output, folder, 'checks.json'), 'utf8')) as Check[]);
    }
    const failed = (scenario: string) => (results.get(scenario) ?? []).filter((check) => check.status === 'FAILURE');

    for (const scenario of TOOLS_ONLY) {
      expect([scenario, results.get(scenario)?.some((check) => check.status === 'SUCCESS'), failed(scenario)]).toEqual([scenario, true, []]);
    }
    const unexpected = [...results.keys()].filter((scenario) => failed(scenario).length > 0 && !(scenario in NOT_APPLICABLE));
    expect(unexpected).toEqual([]);
    expect(results.size).toBeGreaterThanOrEqual(TOOLS_ONLY.length + Object.keys(NOT_APPLICABLE).length);
  });
});
