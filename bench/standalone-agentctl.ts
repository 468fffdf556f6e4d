/**
 * An agentctl process started by the bench itself (no backend: its backend URL points
 * nowhere), launched with a snapshot file and the whole session identity, as the backend
 * launches one. Its control token is known, so the bench can PUT snapshots to it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { CatalogSnapshot } from '../src/domain/catalog';
import { TOOLPORT_BIN } from './backend';

export const STANDALONE_TOKENS = { mcp: 'bench-mcp', control: 'bench-control' };

export interface StandaloneAgentctl {
  child: ChildProcess;
  pid: number;
  mcpUrl: string;
  controlUrl: string;
  /** Spawn → ready line, ms. */
  launchMs: number;
  stop(): Promise<void>;
}

export async function launchAgentctl(root: string, name: string, snapshot: CatalogSnapshot): Promise<StandaloneAgentctl> {
  const snapshotFile = join(root, `${name}-snapshot.json`);
  writeFileSync(snapshotFile, JSON.stringify(snapshot));
  const launched = performance.now();
  const child = spawn(process.execPath, [TOOLPORT_BIN, 'agentctl', '--backend-url', 'http://127.0.0.1:1', '--mcp-host', '127.0.0.1', '--mcp-port', '0'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
      TOOLPORT_LOG_LEVEL: 'info',
      TOOLPORT_SESSION_TOKEN: 'bench-session',
      TOOLPORT_MCP_TOKEN: STANDALONE_TOKENS.mcp,
      TOOLPORT_CONTROL_TOKEN: STANDALONE_TOKENS.control,
      TOOLPORT_TASK_ID: 't',
      TOOLPORT_SESSION_ID: 's',
      TOOLPORT_WORKSPACE_ID: 'w',
      TOOLPORT_SURFACE: 'kanban-task',
      TOOLPORT_SNAPSHOT_FILE: snapshotFile,
    },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async (): Promise<void> => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await exited;
  };
  try {
    const ready = await new Promise<{ mcp_url: string; control_url: string }>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
      void exited.then(() => reject(new Error(`agentctl ${name} exited before it was ready:\n${stderr}`)));
    });
    return { child, pid: child.pid!, mcpUrl: ready.mcp_url, controlUrl: ready.control_url, launchMs: performance.now() - launched, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
