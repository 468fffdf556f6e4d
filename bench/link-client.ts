/**
 * One light link client: a session started with `launch: false`, linked by agentctl's own link
 * and snapshot code (WsBackendLink, PullCatalog, ApplySnapshot), with no MCP server. Used in
 * the bench process and in bench/link-clients.ts (the same clients in child processes).
 */
import { AjvSchemaCompiler } from '../src/adapters/ajv/ajv-schema-compiler';
import { SilentLogger } from '../src/adapters/memory/silent-logger';
import { WsBackendLink } from '../src/adapters/websocket/ws-backend-link';
import { ApplySnapshot } from '../src/application/agentctl/apply-snapshot';
import { HeldSchemaMemo } from '../src/application/agentctl/held-schema-memo';
import { PullCatalog } from '../src/application/agentctl/pull-catalog';
import { AgentctlSession } from '../src/application/agentctl/session-identity';
import { ToolRegistry } from '../src/application/agentctl/tool-registry';
import { DEFAULT_SETTINGS } from '../src/application/settings';
import type { StartedSession } from '../test/support/processes/backend-world';

/** Milliseconds since the epoch, sub-millisecond: comparable across the bench's processes. */
export const now = (): number => performance.timeOrigin + performance.now();

/** What a link client needs of a started session (handed to a child process over IPC, never argv or env). */
export type LinkTarget = Pick<StartedSession, 'task_id' | 'session_id' | 'workspace_id' | 'surface' | 'agentctl'>;

export interface LinkedSession {
  link: WsBackendLink;
  /** When each snapshot (pulled or pushed, changed or not) was stored (now()). */
  appliedAt: number[];
  /** How many `catalog.push` requests arrived. */
  pushes: number;
  /** When each `catalog.push` request arrived (now()). */
  pushedAt: number[];
}

/**
 * One schema compiler for every client of a process (each client still has its own held-schema
 * memo): a real agentctl has one, and its two ajv engines with their meta-schemas cost a few
 * hundred KB — per client, 10,000 of them made gigabytes of heap whose collection the fan-out
 * figure then measured (bench/PROFILE.md, "10,000 sessions").
 */
let compiler: AjvSchemaCompiler | undefined;

/** Links a session started with `launch: false` as agentctl would, with no MCP server. */
export function linkStarted(started: LinkTarget): LinkedSession {
  const logger = new SilentLogger();
  const registry = new ToolRegistry();
  const session = new AgentctlSession({
    task_id: started.task_id,
    session_id: started.session_id,
    workspace_id: started.workspace_id,
    surface: started.surface,
  });
  const apply = new ApplySnapshot(registry, session, new HeldSchemaMemo((compiler ??= new AjvSchemaCompiler())), DEFAULT_SETTINGS, logger);
  const link = new WsBackendLink({
    backendUrl: started.agentctl!.backend_url,
    sessionToken: started.agentctl!.session_token,
    requestTimeoutMs: 20_000,
    invokeTimeoutMs: 20_000,
    logger,
  });
  const pull = new PullCatalog(link, session, apply, logger);
  const linked: LinkedSession = { link, appliedAt: [], pushes: 0, pushedAt: [] };
  registry.onSwap(() => linked.appliedAt.push(now()));
  link.onPush((payload) => {
    linked.pushes++;
    linked.pushedAt.push(now());
    return apply.push(payload);
  });
  link.onConnected((identity) => void pull.execute(identity));
  link.connect({});
  return linked;
}

/** What a round did at a group of clients: the first push's arrival and the last change applied (now()). */
export interface RoundAt {
  firstPush: number;
  lastApplied: number;
}

/** Clients' state at a mark: how many snapshots and pushes each had. */
export function markOf(sessions: readonly LinkedSession[]): { applied: number[]; pushed: number[] } {
  return { applied: sessions.map((s) => s.appliedAt.length), pushed: sessions.map((s) => s.pushedAt.length) };
}

/** Whether every client applied a snapshot since `mark`. */
export function allAppliedSince(sessions: readonly LinkedSession[], mark: { applied: number[] }): boolean {
  return sessions.every((s, i) => s.appliedAt.length > mark.applied[i]!);
}

/** The round's first push and last change applied since `mark` (every client applied one). */
export function roundAt(sessions: readonly LinkedSession[], mark: { applied: number[]; pushed: number[] }): RoundAt {
  let firstPush = Infinity;
  let lastApplied = -Infinity;
  sessions.forEach((s, i) => {
    firstPush = Math.min(firstPush, s.pushedAt[mark.pushed[i]!] ?? Infinity);
    lastApplied = Math.max(lastApplied, s.appliedAt[mark.applied[i]!]!);
  });
  return { firstPush, lastApplied };
}
