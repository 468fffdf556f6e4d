import type { AgentctlLauncher, AgentctlLaunchSpec, AgentctlProcess, LaunchedAgentctl } from '../../src/application/ports/agentctl-launcher';
import type { CatalogSnapshot } from '../../src/domain/catalog';
import { ToolportError } from '../../src/domain/errors';
import { catalogTool, snapshotOf } from '../support/test-backend';

/** One AgentctlLauncher adapter under test. */
export interface AgentctlLauncherFixture {
  launcher: AgentctlLauncher;
  /** A spec for session `sessionId` holding `snapshot`, that its agentctl can start with (its backend knows the session). */
  spec(sessionId: string, snapshot: CatalogSnapshot): Promise<AgentctlLaunchSpec>;
  /** A spec whose launch cannot succeed (for the fake: its next launch is told to fail). */
  doomedSpec(): Promise<AgentctlLaunchSpec>;
  /** The exposed tool names the launched agentctl serves now (for a process: what an MCP client holding `spec.mcpToken` lists). */
  toolNames(launched: LaunchedAgentctl, spec: AgentctlLaunchSpec): Promise<string[]>;
  /** How many agentctls this fixture's launcher started run now. */
  runningCount(): number;
  /** The agentctl exits on its own, as a crash would (a process: SIGKILL). */
  crash(agentctl: AgentctlProcess): void;
  cleanup(): Promise<void>;
}

export type AgentctlLauncherFixtureFactory = () => AgentctlLauncherFixture | Promise<AgentctlLauncherFixture>;

const GENERATION = '000000000002-c0ffee00';
const SNAPSHOT_A = snapshotOf([catalogTool('acme.tools', 'add_tag')], 3, GENERATION);
const SNAPSHOT_B = snapshotOf([catalogTool('other.plugin', 'ping'), catalogTool('other.plugin', 'pong')], 3, GENERATION);
const names = (snapshot: CatalogSnapshot): string[] => snapshot.tools.map((tool) => tool.exposed_name);

async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<{ settled: true; value: T } | { settled: false }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ settled: false }>((resolve) => (timer = setTimeout(() => resolve({ settled: false }), ms)));
  try {
    return await Promise.race([promise.then((value) => ({ settled: true as const, value })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The AgentctlLauncher contract (the port's promises: a launch resolves once the agentctl
 * serves MCP holding its snapshot, or fails with AGENTCTL_START_FAILED leaving nothing; an
 * agentctl is known by its pid and start time, so a reused pid is neither followed nor
 * signalled; watch() follows one an earlier backend started; dispose() stops following), run
 * with `describe.each` over `[name, factory]` rows.
 */
export function describeAgentctlLauncherContract(rows: Array<[string, AgentctlLauncherFixtureFactory]>, testTimeoutMs = 5000): void {
  describe.each(rows)('AgentctlLauncher contract: %s', (_name, factory) => {
    let fixture: AgentctlLauncherFixture;
    let launcher: AgentctlLauncher;
    const launched: LaunchedAgentctl[] = [];

    beforeEach(async () => {
      fixture = await factory();
      launcher = fixture.launcher;
    });

    afterEach(async () => {
      for (const agentctl of launched.splice(0)) await launcher.stop(agentctl);
      launcher.dispose();
      await fixture.cleanup();
    });

    async function launch(sessionId: string, snapshot: CatalogSnapshot): Promise<{ agentctl: LaunchedAgentctl; spec: AgentctlLaunchSpec }> {
      const spec = await fixture.spec(sessionId, snapshot);
      const agentctl = await launcher.launch(spec);
      launched.push(agentctl);
      return { agentctl, spec };
    }

    it(
      'resolves a launch once its agentctl serves MCP holding its own snapshot, each agentctl apart',
      async () => {
        const [a, b] = await Promise.all([launch('session-a', SNAPSHOT_A), launch('session-b', SNAPSHOT_B)]);
        for (const { agentctl } of [a, b]) {
          expect(agentctl.pid).toBeGreaterThan(0);
          expect(agentctl.startTime === null || Number.isInteger(agentctl.startTime)).toBe(true);
          expect(agentctl.mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        }
        expect(b.agentctl.pid).not.toBe(a.agentctl.pid);
        expect(b.agentctl.mcpUrl).not.toBe(a.agentctl.mcpUrl);
        const [listedA, listedB] = await Promise.all([fixture.toolNames(a.agentctl, a.spec), fixture.toolNames(b.agentctl, b.spec)]);
        expect(listedA).toEqual(expect.arrayContaining(names(SNAPSHOT_A)));
        expect(listedB).toEqual(expect.arrayContaining(names(SNAPSHOT_B)));
        for (const name of names(SNAPSHOT_B)) expect(listedA).not.toContain(name);
        for (const name of names(SNAPSHOT_A)) expect(listedB).not.toContain(name);
        expect(fixture.runningCount()).toBe(2);
      },
      testTimeoutMs,
    );

    it(
      'stops an agentctl and resolves once it is gone; its exit resolves, watch then answers undefined, a second stop does nothing',
      async () => {
        const { agentctl } = await launch('session-a', SNAPSHOT_A);
        const other = await launch('session-b', SNAPSHOT_B);
        await launcher.stop(agentctl);
        expect(fixture.runningCount()).toBe(1);
        const exit = await settledWithin(agentctl.exited, 2000);
        expect(exit.settled).toBe(true);
        expect(launcher.watch(agentctl)).toBeUndefined();
        await expect(launcher.stop(agentctl)).resolves.toBeUndefined();
        // The other one is untouched.
        expect(launcher.watch(other.agentctl)).toBeDefined();
        expect(await fixture.toolNames(other.agentctl, other.spec)).toEqual(expect.arrayContaining(names(SNAPSHOT_B)));
      },
      testTimeoutMs,
    );

    it(
      'resolves `exited` with a code or a signal when the agentctl exits on its own',
      async () => {
        const { agentctl } = await launch('session-a', SNAPSHOT_A);
        fixture.crash(agentctl);
        const exit = await settledWithin(agentctl.exited, 3000);
        expect(exit.settled).toBe(true);
        if (exit.settled) expect(exit.value.code !== null || exit.value.signal !== null).toBe(true);
        expect(fixture.runningCount()).toBe(0);
      },
      testTimeoutMs,
    );

    it(
      'follows a running agentctl by its pid and start time (one an earlier backend started) until it exits',
      async () => {
        const { agentctl } = await launch('session-a', SNAPSHOT_A);
        const recorded: AgentctlProcess = { pid: agentctl.pid, startTime: agentctl.startTime };
        const watching = launcher.watch(recorded);
        expect(watching).toBeDefined();
        expect((await settledWithin(watching!, 200)).settled).toBe(false);
        fixture.crash(recorded);
        const exit = await settledWithin(watching!, 3000);
        expect(exit.settled).toBe(true);
        expect(launcher.watch(recorded)).toBeUndefined();
      },
      testTimeoutMs,
    );

    it(
      'answers watch() with undefined for an agentctl that does not run now, or whose pid started at another time (reused)',
      async () => {
        const { agentctl } = await launch('session-a', SNAPSHOT_A);
        expect(launcher.watch({ pid: 2 ** 22 + 12345, startTime: 1 })).toBeUndefined();
        expect(launcher.watch({ pid: agentctl.pid, startTime: (agentctl.startTime ?? 0) + 1 })).toBeUndefined();
        expect(launcher.watch(agentctl)).toBeDefined();
      },
      testTimeoutMs,
    );

    it(
      'never signals a pid recorded with another start time or with none: the agentctl keeps serving',
      async () => {
        const { agentctl, spec } = await launch('session-a', SNAPSHOT_A);
        await launcher.stop({ pid: agentctl.pid, startTime: (agentctl.startTime ?? 0) + 1 });
        await launcher.stop({ pid: agentctl.pid, startTime: null });
        expect((await settledWithin(agentctl.exited, 300)).settled).toBe(false);
        expect(launcher.watch(agentctl)).toBeDefined();
        expect(await fixture.toolNames(agentctl, spec)).toEqual(expect.arrayContaining(names(SNAPSHOT_A)));
      },
      testTimeoutMs,
    );

    it(
      'fails a launch that cannot start with AGENTCTL_START_FAILED, leaving no process',
      async () => {
        const spec = await fixture.doomedSpec();
        const failure = await launcher.launch(spec).then(
          () => new Error('the launch succeeded'),
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(ToolportError);
        expect((failure as ToolportError).code).toBe('AGENTCTL_START_FAILED');
        expect(fixture.runningCount()).toBe(0);
        // The launcher still launches after a failure.
        const { agentctl, spec: good } = await launch('session-a', SNAPSHOT_A);
        expect(await fixture.toolNames(agentctl, good)).toEqual(expect.arrayContaining(names(SNAPSHOT_A)));
      },
      testTimeoutMs,
    );

    it(
      'stops following on dispose: a watch that has not resolved yet never does, though the agentctl exits',
      async () => {
        const { agentctl } = await launch('session-a', SNAPSHOT_A);
        const watching = launcher.watch({ pid: agentctl.pid, startTime: agentctl.startTime })!;
        expect(watching).toBeDefined();
        launcher.dispose();
        await launcher.stop(agentctl);
        expect((await settledWithin(agentctl.exited, 2000)).settled).toBe(true);
        expect((await settledWithin(watching, 1200)).settled).toBe(false);
      },
      testTimeoutMs,
    );
  });
}
