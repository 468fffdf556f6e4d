import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogTool, snapshotOf } from '../support/test-backend';
import { AgentctlHarness, MCP_TOKEN } from './agentctl-harness';
import { BearerProxy } from './bearer-proxy';
import { runCli } from './client-process';

const ROOT = join(__dirname, '..', '..');

/** Scenarios a tools-only server can pass in full, both eras: every check of each must pass. */
const TOOLS_ONLY = [
  'server-initialize',
  'server-session-lifecycle',
  'ping',
  'tools-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
  'http-header-validation',
  'input-required-result-unsupported-methods',
  'input-required-result-validate-input',
];

/** Checks of mixed scenarios that concern tools/list, discovery and the listen stream: they must pass. */
const TOOLS_CHECKS: Record<string, string[]> = {
  'server-stateless': [
    'sep-2575-server-implements-discover',
    'sep-2575-server-identifies-in-result-meta',
    'sep-2575-discover-capabilities-match-handlers',
    'sep-2575-server-unsupported-version-error',
    'sep-2575-http-server-unsupported-version-400',
    'sep-2575-http-server-header-mismatch-400',
    'sep-2575-http-server-meta-invalid-400',
    'sep-2575-server-sends-subscription-ack',
    'sep-2575-server-tags-subscription-id',
    'sep-2575-server-honors-notification-filter',
  ],
  caching: ['sep-2549-tools-list-caching-hints', 'sep-2549-ttl-non-negative', 'sep-2549-cache-scope-valid'],
};

/**
 * Why a check agentctl fails is one a tools-only server cannot pass: it needs a method beyond
 * tools (prompts, resources, logging, completions: "Method not found"), or calls the suite's
 * own fixture tools by name (`test_simple_text`, `test_trigger_tool_change`…), which agentctl
 * never lists (its names are the §2 `kandev_<plugin>_<tool>` derivation), or checks the Tasks
 * extension, which agentctl does not offer. Undefined means the failure is agentctl's.
 */
function notApplicable(scenario: string, check: Check): string | undefined {
  if (scenario.startsWith('tasks-')) return 'Tasks extension';
  const message = check.errorMessage ?? '';
  if (/Method not found|-32601/.test(message)) return 'not a tools method';
  if (/Unknown tool: |not found\. Available tools|Not testable|Prerequisite failed|Expected InputRequiredResult/.test(message)) return 'fixture tools';
  return undefined;
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/**
 * The official conformance runner (`@modelcontextprotocol/conformance` 0.2.0-alpha.12, the first
 * with 2026-07-28 scenarios), its whole server suite against one agentctl session.
 */
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

  it('passes every scenario and check a tools-only server can, and fails only ones it cannot', async () => {
    // The runner exits non-zero when any scenario fails; the verdict is read from its results.
    const runner = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
    await runCli(['--import', join(ROOT, 'scripts/conformance/node20.mjs'), runner, 'server', '--url', proxy.url, '--suite', 'all', '-o', output], {
      cwd: ROOT,
      env: { HOME: output },
      timeoutMs: 60_000,
    }).catch(() => undefined);
    const results = new Map<string, Check[]>();
    for (const folder of readdirSync(output)) {
      const scenario = folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
      results.set(scenario, JSON.parse(readFileSync(join(output, folder, 'checks.json'), 'utf8')) as Check[]);
    }
    const status = (scenario: string, id: string) => results.get(scenario)?.find((check) => check.id === id)?.status;

    for (const scenario of TOOLS_ONLY) {
      const checks = results.get(scenario) ?? [];
      expect([scenario, checks.some((check) => check.status === 'SUCCESS'), checks.filter((check) => check.status === 'FAILURE')]).toEqual([
        scenario,
        true,
        [],
      ]);
    }
    for (const [scenario, ids] of Object.entries(TOOLS_CHECKS)) {
      expect(ids.map((id) => [scenario, id, status(scenario, id)])).toEqual(ids.map((id) => [scenario, id, 'SUCCESS']));
    }
    const theirs = [...results].flatMap(([scenario, checks]) =>
      checks
        .filter((check) => check.status === 'FAILURE' && notApplicable(scenario, check) === undefined)
        .map((check) => `${scenario}/${check.id}: ${check.errorMessage}`),
    );
    expect(theirs).toEqual([]);
    expect(results.size).toBeGreaterThan(60);
  }, 90_000);
});
