import { status as grpcStatus } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { InvocationError } from '../../domain/errors';
import { describeGrpcError } from './plugin-connection';

/** What the runtime knew about a failed call besides its gRPC status. */
export interface FailedCallContext {
  pluginId: string;
  localName: string;
  timeoutMs: number;
  /** The caller aborted its signal. */
  aborted: boolean;
  /** The plugin process went away while the call was in flight. */
  processGone: boolean;
}

/**
 * Maps a failed gRPC call to the §6/§7 codes. The message names the plugin and tool and the
 * transport's reason, never arguments or results.
 */
export function invocationFailure(error: ServiceError, call: FailedCallContext): InvocationError {
  const tool = `${call.pluginId}/${call.localName}`;
  if (call.aborted) return new InvocationError('CANCELLED', `call to ${tool} was cancelled`);
  if (call.processGone) {
    return new InvocationError('PLUGIN_CRASHED', `plugin ${call.pluginId} exited during the call to ${tool}`);
  }
  switch (error.code) {
    case grpcStatus.DEADLINE_EXCEEDED:
      return new InvocationError('TOOL_TIMEOUT', `${tool} did not answer within ${call.timeoutMs} ms`);
    case grpcStatus.RESOURCE_EXHAUSTED:
      return new InvocationError('RESULT_TOO_LARGE', `${tool} returned a result over the 1 MiB limit`);
    case grpcStatus.UNIMPLEMENTED:
      return new InvocationError('TOOL_NOT_DECLARED', `plugin ${call.pluginId} does not implement ${call.localName}`);
    default:
      return new InvocationError('PLUGIN_CRASHED', `call to ${tool} failed: ${describeGrpcError(error)}`);
  }
}

export function notActive(pluginId: string, why: string): InvocationError {
  return new InvocationError('PLUGIN_NOT_ACTIVE', `plugin ${pluginId} is not active (${why})`);
}
