/**
 * An agentctl process started by the bench itself (no backend: its backend URL points
 * nowhere), launched with a snapshot file and the whole session identity, as the backend
 * launches one. Its control token is known, so the bench can PUT snapshots to it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogSnapshot } from '../src/domain/catalog';
import type { RunningAgentctl } from '../test/support/processes/agentctl-process';
import type { ProcessSandbox } from '../test/support/processes/process-sandbox';

export const STANDALONE_TOKENS = { session: 'bench-session', mcp: 'bench-mcp', control: 'bench-control' };

export function launchAgentctl(sandbox: ProcessSandbox, name: string, snapshot: CatalogSnapshot): Promise<RunningAgentctl> {
  const snapshotFile = join(sandbox.root, `${name}-snapshot.json`);
  writeFileSync(snapshotFile, JSON.stringify(snapshot));
  return sandbox.startAgentctl({
    backendUrl: 'http://127.0.0.1:1',
    args: ['--mcp-host', '127.0.0.1'],
    tokens: STANDALONE_TOKENS,
    env: {
      // bench/profile-hook.js comes in by NODE_OPTIONS.
      ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
      TOOLPORT_TASK_ID: 't',
      TOOLPORT_SESSION_ID: 's',
      TOOLPORT_WORKSPACE_ID: 'w',
      TOOLPORT_SURFACE: 'kanban-task',
      TOOLPORT_SNAPSHOT_FILE: snapshotFile,
    },
  });
}
