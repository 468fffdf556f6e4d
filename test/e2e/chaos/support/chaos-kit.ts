import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TOOLPORT_BIN, type RunningBackend } from '../../support/backend-process';
import { writePluginPackage } from '../../support/plugin-package';
import { processesMentioning, waitForNoProcesses } from '../../support/processes';

/** A private folder for one test file; its path is the marker every process it starts carries. */
export function chaosDir(name: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), `toolport-chaos-${name}-`)));
}

/**
 * A plugin whose `work` tool appends each invocation id to `invocations.log` in its data dir
 * (so a test can tell how often the plugin saw a call), then waits `ms` (or until cancelled).
 */
export const SLOW_PLUGIN_SOURCE = `
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from 'toolport/plugin-sdk';
const log = join(process.env.TOOLPORT_PLUGIN_DATA_DIR ?? '.', 'invocations.log');
void serve({
  tools: {
    work: async (args, context, signal) => {
      appendFileSync(log, context.invocationId + '\\n');
      const ms = typeof args.ms === 'number' ? args.ms : 0;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
      });
      return { text: 'done ' + context.invocationId, structuredContent: { invocation_id: context.invocationId, pid: process.pid } };
    },
  },
});
`;

export const WORK_TOOL = {
  name: 'work',
  description: 'Records the call, waits, answers.',
  surfaces: ['kanban-task', 'office-task'],
  input_schema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 }, n: { type: 'integer' } } },
  output_schema: {
    type: 'object',
    properties: { invocation_id: { type: 'string' }, pid: { type: 'integer' } },
    required: ['invocation_id', 'pid'],
  },
};

/** The invocation ids the slow plugin `pluginId` recorded, in order. */
export function invocationLog(dataDir: string, pluginId: string): string[] {
  const file = join(dataDir, 'plugin-data', pluginId, 'invocations.log');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

export function invocationCount(dataDir: string, pluginId: string): number {
  return invocationLog(dataDir, pluginId).length;
}

export function writeSlowPlugin(dir: string, id: string, version = '1.0.0'): string {
  return writePluginPackage(dir, { manifest: { api_version: 1, id, version, agent_tools: [WORK_TOOL] }, source: SLOW_PLUGIN_SOURCE });
}

/** The exposed name under the default prefix (ids in these tests have only [a-z0-9.]). */
export function exposed(pluginId: string, local: string): string {
  return `kandev_${pluginId.replace(/[^a-z0-9_]/g, '_')}_${local}`;
}

export async function connectMcp(url: string, token: string, name = 'chaos'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

/** Closes MCP clients without letting a dead server fail the teardown. */
export async function closeClients(clients: Array<Client | undefined>): Promise<void> {
  await Promise.all(clients.map((client) => client?.close().catch(() => undefined)));
}

export interface SessionAnswer {
  session_id: string;
  status: string;
  mcp?: { url: string; token: string };
  agentctl?: { backend_url: string; session_token: string };
}

export interface SpawnedAgentctl {
  pid: number;
  mcpUrl: string;
  controlUrl: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr(): string;
}

/**
 * Runs `toolport agentctl` the way an operator would for a `launch: false` session: tokens by
 * environment, its own process group, cwd in `cwd` (so processesMentioning(cwd) finds it).
 */
export async function spawnAgentctl(options: {
  backendUrl: string;
  cwd: string;
  env: { TOOLPORT_SESSION_TOKEN: string; TOOLPORT_MCP_TOKEN: string; TOOLPORT_CONTROL_TOKEN: string };
}): Promise<SpawnedAgentctl> {
  const child = spawn(process.execPath, [TOOLPORT_BIN, 'agentctl', '--backend-url', options.backendUrl, '--mcp-port', '0'], {
    cwd: options.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TOOLPORT_LOG_LEVEL: 'info', ...options.env },
  });
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const ready = await new Promise<{ mcp_url: string; control_url: string }>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error(`agentctl not ready in time:\n${err}`)), 15_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line) as { mcp_url: string; control_url: string });
      } catch {
        reject(new Error(`agentctl printed ${line}`));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`agentctl exited (${code}) before it was ready:\n${err}`));
    });
  }).catch(async (error: unknown) => {
    killGroup(child.pid!, 'SIGKILL');
    await exited;
    throw error;
  });
  return { pid: child.pid!, mcpUrl: ready.mcp_url, controlUrl: ready.control_url, child, exited, stderr: () => err };
}

export function killGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Teardown for a chaos file: stop what it knows of gracefully, then SIGKILL the process group
 * of anything still mentioning `dir` (orphans of a killed backend), and wait until none is left.
 */
export async function tearDown(dir: string, backends: Array<RunningBackend | undefined>, agentctls: Array<SpawnedAgentctl | undefined>): Promise<void> {
  for (const agentctl of agentctls) if (agentctl) killGroup(agentctl.pid, 'SIGTERM');
  await Promise.all(backends.map((backend) => backend?.stop('SIGTERM')));
  await Promise.all(agentctls.map((agentctl) => agentctl && within(agentctl.exited, 3000)));
  for (const agentctl of agentctls) if (agentctl) killGroup(agentctl.pid, 'SIGKILL');
  await Promise.all(agentctls.map((agentctl) => agentctl?.exited));
  for (const left of processesMentioning(dir)) if (left.state !== 'Z') killGroup(left.pid, 'SIGKILL');
  const remaining = await waitForNoProcesses(dir, 8000);
  rmSync(dir, { recursive: true, force: true });
  if (remaining.length > 0) throw new Error(`processes left: ${JSON.stringify(remaining)}`);
}

/** Waits for `promise` at most `ms`, leaving no timer behind. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await delay(25);
  }
}

export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((part) => part.text ?? '').join('');
}
