/**
 * Measures GrpcPluginRuntime with the SDK test plugin, in one run:
 * - start time (spawn → active: handshake and first health check) over 10 starts;
 * - per-call time of GrpcPluginRuntime.invoke next to a bare grpc-js unary call to the same
 *   plugin process (same request, metadata and deadline), 2000 calls each, interleaved in
 *   blocks so both see the same machine load.
 * Run with `node scripts/measure-runtime.js` (it bundles this file and the plugin first).
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GrpcPluginRuntime } from '../src/adapters/grpc/grpc-plugin-runtime';
import { PluginClient } from '../src/adapters/grpc/generated/toolport/plugin/v1/plugin';
import { MAX_RECEIVE_BYTES } from '../src/adapters/grpc/plugin-connection';
import { Logger } from '../src/application/ports/logger';
import type { LogFields } from '../src/application/ports/logger';
import type { PluginCall } from '../src/application/ports/plugin-runtime';
import { median, p95 } from '../bench/stats';

const STARTS = 10;
const CALLS = 2000;
const BLOCK = 100;
const WARMUP = 300;

/** Discards records, except that it remembers the port the plugin said it serves on. */
class PortSpy extends Logger {
  port = 0;
  debug(): void {}
  info(fields: LogFields, message: string): void {
    const plugin = fields.plugin_fields as { port?: number } | undefined;
    if (message === 'plugin serving' && plugin?.port) this.port = plugin.port;
  }
  warn(): void {}
  error(): void {}
  child(): Logger {
    return this;
  }
}

function ms(nanoseconds: bigint): number {
  return Number(nanoseconds) / 1e6;
}

async function main(): Promise<void> {
  const pluginScript = process.argv[2];
  const dataDir = mkdtempSync(join(tmpdir(), 'toolport-measure-'));
  const spy = new PortSpy();
  const runtime = new GrpcPluginRuntime(spy, { startTimeoutMs: 30_000, healthIntervalMs: 5000, restartBackoffMs: 1000 });
  const spec = { pluginId: 'measure.plugin', version: '1.0.0', installDir: dataDir, executable: process.execPath, args: [pluginScript], dataDir };

  const starts: number[] = [];
  const stops: number[] = [];
  for (let i = 0; i < STARTS; i += 1) {
    const began = process.hrtime.bigint();
    const instance = await runtime.start(spec);
    starts.push(ms(process.hrtime.bigint() - began));
    const stopping = process.hrtime.bigint();
    await runtime.stop(instance);
    stops.push(ms(process.hrtime.bigint() - stopping));
  }

  const instance = await runtime.start(spec);
  const bare = new PluginClient(`127.0.0.1:${spy.port}`, credentials.createInsecure(), {
    'grpc.enable_retries': 0,
    'grpc.max_receive_message_length': MAX_RECEIVE_BYTES,
  });
  const context = { task_id: 't', session_id: 's', workspace_id: 'w', surface: 'kanban-task' as const, profile: 'default' };
  const argumentsJson = JSON.stringify({ value: 'hello' });
  const viaRuntime = async (n: number): Promise<void> => {
    const call: PluginCall = { invocationId: `r${n}`, localName: 'echo', argumentsJson, context, timeoutMs: 30_000, signal: new AbortController().signal };
    await runtime.invoke(instance, call);
  };
  const viaBare = (n: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const metadata = new Metadata();
      metadata.set('toolport-invocation-id', `b${n}`);
      const request = {
        invocationId: `b${n}`,
        name: 'echo',
        argumentsJson,
        context: { taskId: 't', sessionId: 's', workspaceId: 'w', surface: 'kanban-task', profile: '' },
      };
      bare.invokeAgentTool(request, metadata, { deadline: Date.now() + 30_000 }, (error) => (error ? reject(error) : resolve()));
    });

  for (let i = 0; i < WARMUP; i += 1) {
    await viaRuntime(i);
    await viaBare(i);
  }
  const runtimeTimes: number[] = [];
  const bareTimes: number[] = [];
  for (let block = 0; block < CALLS / BLOCK; block += 1) {
    const [first, second] = block % 2 === 0 ? [viaRuntime, viaBare] : [viaBare, viaRuntime];
    for (const [kind, times] of [
      [first, first === viaRuntime ? runtimeTimes : bareTimes],
      [second, second === viaRuntime ? runtimeTimes : bareTimes],
    ] as const) {
      for (let i = 0; i < BLOCK; i += 1) {
        const began = process.hrtime.bigint();
        await kind(block * BLOCK + i);
        times.push(ms(process.hrtime.bigint() - began));
      }
    }
  }
  bare.close();
  await runtime.stopAll();
  rmSync(dataDir, { recursive: true, force: true });

  const fmt = (value: number): string => `${value.toFixed(3)} ms`;
  console.log(`node ${process.version}, ${STARTS} starts, ${CALLS} calls each`);
  console.log(`start (spawn → active)  median ${fmt(median(starts))}  min ${fmt(Math.min(...starts))}  max ${fmt(Math.max(...starts))}`);
  console.log(`stop (Shutdown → exit)  median ${fmt(median(stops))}`);
  console.log(`GrpcPluginRuntime.invoke  median ${fmt(median(runtimeTimes))}  p95 ${fmt(p95(runtimeTimes))}`);
  console.log(`bare grpc-js unary call   median ${fmt(median(bareTimes))}  p95 ${fmt(p95(bareTimes))}`);
  console.log(`runtime overhead (median difference) ${fmt(median(runtimeTimes) - median(bareTimes))}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
