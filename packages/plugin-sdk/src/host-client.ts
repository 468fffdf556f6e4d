import { Scope } from './generated/toolport/plugin/v1/host';
import { HostChannel } from './host-channel';
import { hostStore } from './host-stores';
import type { CallHost, PluginHost } from './host-types';

/**
 * A plugin process's Host API over one channel: the instance host that every part of the
 * plugin shares, and a host for each tool call, which names that call where it must.
 */
export class HostConnection {
  /** Instance access only: no request names a call. */
  readonly instance: PluginHost;
  private readonly channel: HostChannel;

  constructor(env: NodeJS.ProcessEnv) {
    this.channel = new HostChannel(env);
    const { state, secrets } = hostStore(this.channel, { scope: Scope.SCOPE_INSTANCE, invocationId: '' });
    // The instance configuration changes only with a new process: one read serves it all.
    this.instance = { config: readOnce(() => this.readConfig('')), state, secrets, close: () => this.channel.close() };
  }

  /**
   * The host of the call `invocationId`, for its handler. Only `config()` and the `workspace` /
   * `task` requests carry the call's id; `state` and `secrets` are the instance's, so work the
   * handler leaves running keeps them once the call is over (the host refuses a finished
   * call's id). `config()` is read once per call, not per process: a workspace's overrides
   * change without a restart, so an answer is good for the call that asked, and reading it
   * once keeps every read of one call the same and costs one round trip.
   */
  forCall(invocationId: string): CallHost {
    return {
      config: readOnce(() => this.readConfig(invocationId)),
      state: this.instance.state,
      secrets: this.instance.secrets,
      workspace: hostStore(this.channel, { scope: Scope.SCOPE_WORKSPACE, invocationId }),
      task: hostStore(this.channel, { scope: Scope.SCOPE_TASK, invocationId }),
      close: this.instance.close,
    };
  }

  private async readConfig(invocationId: string): Promise<Record<string, unknown>> {
    const answer = await this.channel.call((c) => c.getConfig, { invocationId });
    return JSON.parse(answer.valuesJson) as Record<string, unknown>;
  }
}

/** The instance host of a process started with `env` (TOOLPORT_HOST_ADDR, TOOLPORT_HOST_TOKEN). */
export function connectHost(env: NodeJS.ProcessEnv = process.env): PluginHost {
  return new HostConnection(env).instance;
}

/** `read` once, its answer kept; a failed read is not kept, so the next call asks again. */
function readOnce(read: () => Promise<Record<string, unknown>>): <T>() => Promise<T> {
  let answer: Promise<Record<string, unknown>> | undefined;
  return <T>() => {
    answer ??= read().catch((error: unknown) => {
      answer = undefined;
      throw error;
    });
    return answer as Promise<T>;
  };
}
