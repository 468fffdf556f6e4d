import type { InvokeAgentToolInput } from '../../src/application/invocation/invoke-agent-tool';
import type { JsonObject } from '../../src/domain/json';
import type { LinkedSession } from '../../src/domain/session';

/** The identity of the session the backend harness stores as live. */
export const LIVE_SESSION: LinkedSession = {
  task_id: 'task-1',
  session_id: 'session-1',
  workspace_id: 'ws-1',
  surface: 'kanban-task',
  profile: 'default',
};

/** An InvokeAgentTool input from the live kanban session; override any field. */
export function invokeInput(pluginId: string, localName: string, args: unknown = {}, overrides: Partial<InvokeAgentToolInput> = {}): InvokeAgentToolInput {
  return { session: LIVE_SESSION, pluginId, localName, arguments: args as JsonObject, signal: new AbortController().signal, ...overrides };
}

/** The InvocationError code a promise rejects with (fails the test if it resolves). */
export async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  const outcome = await promise.then(
    () => ({ ok: true as const }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error('expected a rejection, the call succeeded');
  return (outcome.error as { code?: string }).code ?? String(outcome.error);
}

/** Polls `condition` (each turn of the event loop) until it holds, or fails after a deadline. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 2000, description = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${description} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
