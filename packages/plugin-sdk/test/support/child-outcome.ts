import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** What a spawned child (stdout and stderr piped) wrote and how it exited. */
export interface ChildOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Collects everything `child` writes until its streams close, then its exit code (null after a signal). */
export async function outcomeOf(child: ChildProcess): Promise<ChildOutcome> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}
