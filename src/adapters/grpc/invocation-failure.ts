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
  /** The host's own deadline for the call has passed (epoch ms compared with now). */
  deadlinePassed: boolean;
}

// grpc-js makes these statuses up itself when the stream or the connection under a call breaks
// (the plugin sent nothing): they say the transport failed, not that the plugin answered.
const TRANSPORT_DETAILS = /^(Received RST_STREAM|Received HTTP status code|Connection dropped|Call cancelled|Stream refused)/;
// The message size limits, on either side of the wire.
const SIZE_LIMIT_DETAILS = /message larger than max/;

/**
 * Maps a failed gRPC call to the §6/§7 codes. A status the live plugin answered with is
 * PLUGIN_ERROR (its status name and message); PLUGIN_CRASHED is kept for a process that went
 * away or a connection that broke. The message names the plugin and tool and the reason, never
 * arguments or results.
 */
export function invocationFailure(error: ServiceError, call: FailedCallContext): InvocationError {
  const tool = `${call.pluginId}/${call.localName}`;
  if (call.aborted) return new InvocationError('CANCELLED', `call to ${tool} was cancelled`);
  if (call.processGone) {
    return new InvocationError('PLUGIN_CRASHED', `plugin ${call.pluginId} exited during the call to ${tool}`);
  }
  const details = error.details ?? '';
  if (error.code === grpcStatus.DEADLINE_EXCEEDED && call.deadlinePassed) {
    return new InvocationError('TOOL_TIMEOUT', `${tool} did not answer within ${call.timeoutMs} ms`);
  }
  if (error.code === grpcStatus.RESOURCE_EXHAUSTED && SIZE_LIMIT_DETAILS.test(details)) {
    return new InvocationError('RESULT_TOO_LARGE', `${tool} returned a result over the 1 MiB limit`);
  }
  if (error.code === grpcStatus.UNAVAILABLE || TRANSPORT_DETAILS.test(details)) {
    return new InvocationError('PLUGIN_CRASHED', `the connection to plugin ${call.pluginId} broke during the call to ${tool}: ${describeGrpcError(error)}`);
  }
  return new InvocationError('PLUGIN_ERROR', `${tool} answered ${describeGrpcError(error)}`);
}

export function notActive(pluginId: string, why: string): InvocationError {
  return new InvocationError('PLUGIN_NOT_ACTIVE', `plugin ${pluginId} is not active (${why})`);
}
