import { ProcessRun } from './process-run';
import { TOOLPORT_BIN } from './toolport-paths';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  /** Added to a copy of the environment from which every TOOLPORT_* variable was removed. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
}

/** This process's environment without TOOLPORT_* variables, so each run says what it uses. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('TOOLPORT_')) env[key] = value;
  return { ...env, ...extra };
}

/** Runs `node bin/toolport <args>` as a real subprocess and collects its exit code and whole output. */
export async function runToolport(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  const run = new ProcessRun(process.execPath, [TOOLPORT_BIN, ...args], { cwd: options.cwd, env: cleanEnv(options.env) });
  const timer = setTimeout(() => run.signal('SIGKILL'), options.timeoutMs ?? 30_000);
  const code = await run.closed;
  clearTimeout(timer);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}
