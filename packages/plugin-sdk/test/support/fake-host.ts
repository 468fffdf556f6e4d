import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall, type UntypedHandleCall } from '@grpc/grpc-js';
import { HostService, Scope } from '../../src/generated/toolport/plugin/v1/host';

/** One request the fake host received: the method, and what it named. */
export interface SeenRequest {
  method: string;
  scope: Scope | undefined;
  invocationId: string;
  key?: string;
  authorization: string;
}

/**
 * A Host service on a unix socket (TOOLPORT_HOST_ADDR `unix:/…`, as the backend serves it)
 * that records every request and answers from small rules: GetConfig answers the configuration
 * of the call it names (`configs`), GetState answers what the request named as its value, and
 * every request naming an id in `finished` is PERMISSION_DENIED, as the host does for a call no
 * longer in flight.
 */
export class FakeHost {
  readonly seen: SeenRequest[] = [];
  readonly finished = new Set<string>();
  readonly configs = new Map<string, Record<string, unknown>>();
  readonly token = 'test-token-1';
  private readonly server = new Server();
  private readonly dir = mkdtempSync(join(tmpdir(), 'tp-host-'));
  readonly address = `unix:${join(this.dir, 'host.sock')}`;

  async start(): Promise<this> {
    const handlers: Record<string, UntypedHandleCall> = {};
    for (const [name, definition] of Object.entries(HostService)) {
      handlers[name] = (call: ServerUnaryCall<Record<string, unknown>, unknown>, reply: sendUnaryData<unknown>) =>
        this.answer(definition.path.split('/').pop()!, call, reply);
    }
    this.server.addService(HostService, handlers);
    await new Promise<void>((resolve, reject) =>
      this.server.bindAsync(this.address, ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())),
    );
    return this;
  }

  /** What a plugin process started by this host finds in its environment. */
  env(): NodeJS.ProcessEnv {
    return { TOOLPORT_HOST_ADDR: this.address, TOOLPORT_HOST_TOKEN: this.token };
  }

  /** `[method, scope, invocation id]` of each request, in order. */
  calls(): Array<[string, Scope | undefined, string]> {
    return this.seen.map((r) => [r.method, r.scope, r.invocationId]);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private answer(method: string, call: ServerUnaryCall<Record<string, unknown>, unknown>, reply: sendUnaryData<unknown>): void {
    const request = call.request;
    const invocationId = String(request.invocationId ?? '');
    const scope = request.scope as Scope | undefined;
    const [authorization] = call.metadata.get('authorization');
    this.seen.push({ method, scope, invocationId, key: request.key as string | undefined, authorization: String(authorization) });
    if (this.finished.has(invocationId)) {
      reply({ code: status.PERMISSION_DENIED, details: `the call ${invocationId} is not in flight to this process` });
      return;
    }
    const named = { scope: scope ?? null, invocationId };
    const answers: Record<string, unknown> = {
      GetConfig: { valuesJson: JSON.stringify(this.configs.get(invocationId) ?? {}) },
      GetState: { found: true, valueJson: JSON.stringify(named) },
      SetState: {},
      DeleteState: { deleted: true },
      ListState: { keys: [`${String(request.prefix)}a`], nextPageToken: '' },
      GetSecret: { found: true, value: JSON.stringify(named) },
      SetSecret: {},
      DeleteSecret: { deleted: true },
    };
    reply(null, answers[method]);
  }
}
