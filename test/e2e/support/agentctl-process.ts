import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { TOOLPORT_BIN } from './backend-process';

export interface RunningAgentctlProcess {
  pid: number;
  mcpUrl: string;
  controlUrl: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr(): string;
  /** SIGKILLs its process group and waits for the exit. */
  kill(): Promise<void>;
}

export interface AgentctlProcessOptions {
  backendUrl: string;
  dataDir: string;
  sessionToken: string;
  mcpToken: string;
  controlToken: string;
  readyTimeoutMs?: number;
}

/**
 * Runs `toolport agentctl` the way an operator would for a `launch: false` session (tokens by
 * environment only) and resolves on its one ready line.
 */
export async function startAgentctl(options: AgentctlProcessOptions): Promise<RunningAgentctlProcess> {
  const child = spawn(process.execPath, [TOOLPORT_BIN, 'agentctl', '--backend-url', options.backendUrl, '--data-dir', options.dataDir, '--mcp-port', '0'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TOOLPORT_LOG_LEVEL: 'info',
      TOOLPORT_SESSION_TOKEN: options.sessionToken,
      TOOLPORT_MCP_TOKEN: options.mcpToken,
      TOOLPORT_CONTROL_TOKEN: options.controlToken,
    },
  });
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const kill = async () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
  };
  const ready = await new Promise<{ mcp_url: string; control_url: string }>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error(`agentctl not ready in time:\n${err}`)), options.readyTimeoutMs ?? 20000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line) as { mcp_url: string; control_url: string });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`agentctl exited with ${code} before it was ready:\n${err}`));
    });
  }).catch(async (error: unknown) => {
    await kill();
    throw error;
  });
  child.stdout!.resume();
  return { pid: child.pid!, mcpUrl: ready.mcp_url, controlUrl: ready.control_url, child, exited, stderr: () => err, kill };
}
