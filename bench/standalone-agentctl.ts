/**
 * An agentctl process started by the bench itself, launched with a snapshot file and the whole
 * session identity, as the backend launches one. Its link goes to a scripted backend in the
 * bench's own process (a launched agentctl is ready only once linked), which serves that same
 * snapshot and nothing else. Its control token is known, so the bench can PUT snapshots to it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogSnapshot } from '../src/domain/catalog';
import type { RunningAgentctl } from '../test/support/processes/agentctl-process';
import type { ProcessSandbox } from '../test/support/processes/process-sandbox';
import { ScriptedBackend, TestBackendServer } from '../test/support/test-backend';

export const STANDALONE_TOKENS = { session: 'bench-session', mcp: 'bench-mcp', control: 'bench-control' };

export async function launchAgentctl(sandbox: ProcessSandbox, name: string, snapshot: CatalogSnapshot): Promise<RunningAgentctl> {
  const snapshotFile = join(sandbox.root, `${name}-snapshot.json`);
  writeFileSync(snapshotFile, JSON.stringify(snapshot));
  const scripted = new ScriptedBackend();
  scripted.identity = { task_id: 't', session_id: 's', workspace_id: 'w', surface: 'kanban-task' };
  scripted.sessionToken = STANDALONE_TOKENS.session;
  scripted.catalog = snapshot;
  const link = await TestBackendServer.start(scripted);
  try {
    const agentctl = await sandbox.startAgentctl({
      backendUrl: link.url,
      args: ['--mcp-host', '127.0.0.1'],
      tokens: STANDALONE_TOKENS,
      env: {
        // bench/profile-hook.js comes in by NODE_OPTIONS.
        ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
        TOOLPORT_TASK_ID: scripted.identity.task_id,
        TOOLPORT_SESSION_ID: scripted.identity.session_id,
        TOOLPORT_WORKSPACE_ID: scripted.identity.workspace_id,
        TOOLPORT_SURFACE: scripted.identity.surface,
        TOOLPORT_SNAPSHOT_FILE: snapshotFile,
      },
    });
    return {
      ...agentctl,
      stop: async (signal) => {
        try {
          return await agentctl.stop(signal);
        } finally {
          await link.stop();
        }
      },
    };
  } catch (error) {
    await link.stop();
    throw error;
  }
}
