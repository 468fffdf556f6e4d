import { join } from 'node:path';
import { build } from 'esbuild';
import type { TestBackendServer } from '../support/test-backend';

const ROOT = join(__dirname, '..', '..');

/** Bundles fixtures/stdio-agentctl.ts to `outfile` (the compiled dist/ may be stale; packages stay external). */
export async function buildStdioAgentctl(outfile: string): Promise<void> {
  await build({
    entryPoints: [join(__dirname, 'fixtures', 'stdio-agentctl.ts')],
    bundle: true,
    platform: 'node',
    packages: 'external',
    outfile,
    logLevel: 'silent',
  });
}

/** The environment of an `agentctl --stdio` process for the test session, its launch snapshot in `snapshotFile`. */
export function stdioAgentctlEnv(backend: TestBackendServer, snapshotFile: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    NODE_PATH: join(ROOT, 'node_modules'),
    TEST_BACKEND_URL: backend.url,
    TOOLPORT_SESSION_TOKEN: backend.sessionToken,
    TOOLPORT_CONTROL_TOKEN: 'control',
    TOOLPORT_TASK_ID: 'task-1',
    TOOLPORT_SESSION_ID: 'session-1',
    TOOLPORT_WORKSPACE_ID: 'ws-1',
    TOOLPORT_SURFACE: 'kanban-task',
    TOOLPORT_SNAPSHOT_FILE: snapshotFile,
  };
}
