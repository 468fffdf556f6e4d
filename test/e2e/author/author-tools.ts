import { ProcessRun } from '../../support/processes/process-run';
import { cleanEnv, runToolport, type CliRun } from '../../support/processes/run-toolport';

/** Runs a program an author runs (npm, python3) in `cwd` to its end, `env` added; killed after `timeoutMs`. */
export async function runTool(command: string, args: string[], cwd: string, timeoutMs = 120_000, env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const run = new ProcessRun(command, args, { cwd, env: cleanEnv({ npm_config_update_notifier: 'false', ...env }) });
  const timer = setTimeout(() => run.signal('SIGKILL'), timeoutMs);
  const code = await run.closed;
  clearTimeout(timer);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** `toolport <args> --data-dir <dataDir>` in `cwd`, expecting exit 0. */
export async function toolportOk(args: string[], dataDir: string, cwd?: string): Promise<CliRun> {
  const run = await runToolport([...args, '--data-dir', dataDir], { cwd, timeoutMs: 60_000 });
  if (run.code !== 0) throw new Error(`toolport ${args.join(' ')} exited ${run.code}: ${run.stderr}${run.stdout}`);
  return run;
}

/** Milliseconds since `start` (a `performance.now()` reading). */
export function since(start: number): number {
  return Math.round(performance.now() - start);
}

/** Timings go to stderr only when asked (TOOLPORT_AUTHOR_TIMINGS=1): tests assert behaviour, never time. */
export function report(line: string): void {
  if (process.env.TOOLPORT_AUTHOR_TIMINGS === '1') process.stderr.write(`[author loop] ${line}\n`);
}
