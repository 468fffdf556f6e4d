import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GrpcPluginRuntime } from '../../../../src/adapters/grpc/grpc-plugin-runtime';
import type { GrpcPluginRuntimeOptions } from '../../../../src/adapters/grpc/grpc-plugin-runtime';
import type { PluginCall, PluginInstance, PluginLaunchSpec } from '../../../../src/application/ports/plugin-runtime';
import { InvocationError } from '../../../../src/domain/errors';
import { StatusRecorder } from '../../../support/status-recorder';
import { leftoverProcesses } from './proc-scan';
import { newDataDir, nodeScriptSpec, removeDataDirs } from './plugin-specs';
import { CapturingLogger } from '../../../support/capturing-logger';
import { buildSdkFixture, FIXTURE_DIR } from './sdk-fixture';
import type { BuiltFixture } from './sdk-fixture';

export const TEST_OPTIONS: GrpcPluginRuntimeOptions = { startTimeoutMs: 5000, healthIntervalMs: 200, restartBackoffMs: 20 };

export interface RuntimeHarness {
  built: BuiltFixture;
  runtime: GrpcPluginRuntime;
  logger: CapturingLogger;
  recorder: StatusRecorder;
  /** Every plugin pid this test saw; none may exist after it. */
  seenPids: Set<number>;
  /** Replaces the runtime (before starting anything) with one built from other options. */
  useOptions(options: Partial<GrpcPluginRuntimeOptions>): void;
  start(spec: PluginLaunchSpec): Promise<PluginInstance>;
  sdkSpec(pluginId?: string): PluginLaunchSpec;
  rawSpec(script: string, args?: string[], pluginId?: string): PluginLaunchSpec;
}

/**
 * Builds the SDK fixture once per file, gives each test a fresh runtime, and after each test
 * stops everything and fails when any plugin process (or zombie) is left.
 */
export function useRuntimeHarness(): RuntimeHarness {
  const h = { seenPids: new Set<number>() } as RuntimeHarness;
  const create = (options: Partial<GrpcPluginRuntimeOptions>): void => {
    h.logger = new CapturingLogger();
    h.runtime = new GrpcPluginRuntime(h.logger, { ...TEST_OPTIONS, ...options });
    h.recorder = new StatusRecorder(h.runtime);
    h.runtime.onStatus((event) => {
      const pid = event.instance.pid();
      if (pid !== undefined) h.seenPids.add(pid);
    });
  };
  h.useOptions = (options) => {
    h.recorder.dispose();
    create(options);
  };
  h.start = async (spec) => {
    const instance = await h.runtime.start(spec);
    h.seenPids.add(instance.pid()!);
    return instance;
  };
  h.sdkSpec = (pluginId = 'sdk.fixture') => nodeScriptSpec(pluginId, h.built.script, newDataDir());
  h.rawSpec = (script, args = [], pluginId = 'raw.fixture') => nodeScriptSpec(pluginId, join(FIXTURE_DIR, script), newDataDir(), args);

  beforeAll(() => {
    h.built = buildSdkFixture();
  });
  afterAll(() => h.built.remove());
  beforeEach(() => {
    h.seenPids.clear();
    create({});
  });
  afterEach(async () => {
    h.recorder.dispose();
    await h.runtime.stopAll();
    removeDataDirs();
    expect(leftoverProcesses([h.built.dir, FIXTURE_DIR], h.seenPids)).toEqual([]);
  });
  return h;
}

let counter = 0;

/** A call with a fixed context and a fresh invocation id; override any field. */
export function toolCall(localName: string, args: unknown = {}, overrides: Partial<PluginCall> = {}): PluginCall {
  counter += 1;
  return {
    invocationId: `inv-${process.pid}-${counter}`,
    localName,
    argumentsJson: JSON.stringify(args),
    context: { task_id: 'task-1', session_id: 'session-1', workspace_id: 'ws-1', surface: 'kanban-task', profile: 'default' },
    timeoutMs: 5000,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** The InvocationError a call failed with (fails the test when it succeeded or threw something else). */
export async function invocationError(promise: Promise<unknown>): Promise<InvocationError> {
  const outcome = await promise.then(
    () => new Error('the call succeeded, a failure was expected'),
    (error: unknown) => error,
  );
  if (outcome instanceof InvocationError) return outcome;
  throw outcome;
}

/** Polls for `path` to exist, up to `timeoutMs`. */
export async function waitForFile(path: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The invocation ids the SDK fixture recorded in calls.log. */
export function recordedCalls(dataDir: string): string[] {
  const file = join(dataDir, 'calls.log');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}
