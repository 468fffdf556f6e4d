import { join } from 'node:path';
import { build } from 'esbuild';
import { AGENTCTL_UNDER_TEST_ENV, agentctlArgs } from '../support/processes/toolport-paths';
import type { TestBackendServer } from '../support/test-backend';

const ROOT = join(__dirname, '..', '..');

/** True when TOOLPORT_TEST_AGENTCTL has the kit run the standalone agentctl file. */
const standalone = (): boolean => (process.env[AGENTCTL_UNDER_TEST_ENV] ?? '') !== '';

/**
 * The arguments after `node` of an `agentctl --stdio` process: fixtures/stdio-agentctl.ts
 * bundled to `outfile` (the compiled dist/ may be stale; packages stay external), or with
 * TOOLPORT_TEST_AGENTCTL=bundle the standalone agentctl file, copied alone.
 */
export async function buildStdioAgentctl(outfile: string): Promise<string[]> {
  if (standalone()) return [...agentctlArgs(), '--stdio'];
  await build({
    entryPoints: [join(__dirname, 'fixtures', 'stdio-agentctl.ts')],
    bundle: true,
    platform: 'node',
    packages: 'external',
    outfile,
    logLevel: 'silent',
  });
  return [outfile];
}

/** The environment of an `agentctl --stdio` process for the test session, its launch snapshot in `snapshotFile`. */
export function stdioAgentctlEnv(backend: TestBackendServer, snapshotFile: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    // The fixture finds its packages in the checkout; the standalone file needs none.
    ...(standalone() ? { TOOLPORT_BACKEND_URL: backend.url, TOOLPORT_LOG_LEVEL: 'debug' } : { NODE_PATH: join(ROOT, 'node_modules') }),
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
