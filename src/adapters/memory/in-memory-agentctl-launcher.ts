import { AgentctlLauncher, type AgentctlLaunchSpec, type AgentctlProcess, type LaunchedAgentctl } from '../../application/ports/agentctl-launcher';
import type { CatalogSnapshot } from '../../domain/catalog';
import { ToolportError } from '../../domain/errors';

interface FakeAgentctl {
  spec: AgentctlLaunchSpec;
  startTime: number;
  exited: Promise<{ code: number | null; signal: string | null }>;
  exit(code: number | null, signal: string | null): void;
}

/**
 * An AgentctlLauncher with no processes: each launch gets a fake pid and URLs; a test can
 * make launches fail or make an agentctl "exit".
 */
export class InMemoryAgentctlLauncher extends AgentctlLauncher {
  /** Every launch spec received, in order. */
  readonly launches: AgentctlLaunchSpec[] = [];
  private readonly running = new Map<number, FakeAgentctl>();
  private nextPid = 30000;
  private failuresLeft = 0;
  private disposed = false;

  /** Makes the next `times` launches fail with AGENTCTL_START_FAILED. */
  failNext(times = 1): void {
    this.failuresLeft = times;
  }

  /** The pids of agentctls that run now. */
  runningPids(): number[] {
    return [...this.running.keys()];
  }

  /** The snapshot the fake agentctl with this pid was launched holding; undefined once it exited. */
  snapshotOf(pid: number): CatalogSnapshot | undefined {
    return this.running.get(pid)?.spec.snapshot;
  }

  /** Makes the agentctl with this pid exit on its own. */
  exit(pid: number, code: number | null = 1): void {
    this.running.get(pid)?.exit(code, null);
  }

  async launch(spec: AgentctlLaunchSpec): Promise<LaunchedAgentctl> {
    this.launches.push(spec);
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      throw new ToolportError('AGENTCTL_START_FAILED', 'agentctl exited before it accepted MCP connections');
    }
    const pid = this.nextPid++;
    let resolveExit: (value: { code: number | null; signal: string | null }) => void = () => undefined;
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => (resolveExit = resolve));
    const startTime = pid * 10;
    this.running.set(pid, {
      spec,
      startTime,
      exited,
      exit: (code, signal) => {
        this.running.delete(pid);
        resolveExit({ code, signal });
      },
    });
    return { pid, startTime, mcpUrl: `http://127.0.0.1:${pid}/mcp`, exited };
  }

  watch(agentctl: AgentctlProcess): Promise<{ code: number | null; signal: string | null }> | undefined {
    const found = this.find(agentctl);
    if (!found) return undefined;
    // As the process launcher: after dispose() a watch not yet resolved never resolves.
    return new Promise((resolve) => void found.exited.then((exit) => this.disposed || resolve(exit)));
  }

  override dispose(): void {
    this.disposed = true;
  }

  async stop(agentctl: AgentctlProcess): Promise<void> {
    this.find(agentctl)?.exit(null, 'SIGTERM');
  }

  /** The fake running as this pid, only if it is the one started at that time. */
  private find({ pid, startTime }: AgentctlProcess): FakeAgentctl | undefined {
    const found = this.running.get(pid);
    return found !== undefined && found.startTime === startTime ? found : undefined;
  }
}
