import { status, type Metadata, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import type { HostReach, HostRequests } from '../../../application/host/host-requests';
import { HostCallError, type HostErrorCode } from '../../../domain/errors';
import { bearerToken } from '../../shared/bearer';
import { Scope, type HostServer } from '../generated/toolport/plugin/v1/host';

/**
 * The core's Host failures as the gRPC statuses plugins see (docs/plugin-protocol.md §13), mapped
 * once. A plugin retries UNAVAILABLE with its next process; the others are answers.
 */
const STATUS: Record<HostErrorCode, status> = {
  HOST_TOKEN_INVALID: status.UNAUTHENTICATED,
  CAPABILITY_NOT_GRANTED: status.PERMISSION_DENIED,
  ENTRY_INVALID: status.INVALID_ARGUMENT,
  KEY_LIMIT_REACHED: status.RESOURCE_EXHAUSTED,
  NO_PLUGIN_RECORD: status.UNAVAILABLE,
  HOST_STOPPING: status.UNAVAILABLE,
  SECRET_UNREADABLE: status.INTERNAL,
  SCOPE_UNKNOWN: status.INVALID_ARGUMENT,
  // A workspace's or a task's entries are reachable only while serving one of its calls.
  INVOCATION_NOT_IN_FLIGHT: status.PERMISSION_DENIED,
  INVOCATION_REQUIRED: status.PERMISSION_DENIED,
};

/** The wire's Scope as the core reads it; a value this host does not know is refused after the token and capability checks. */
function scopeOf(scope: Scope): HostReach['scope'] {
  switch (scope) {
    case Scope.SCOPE_UNSPECIFIED:
    case Scope.SCOPE_INSTANCE:
      return 'instance';
    case Scope.SCOPE_WORKSPACE:
      return 'workspace';
    case Scope.SCOPE_TASK:
      return 'task';
    default:
      return 'unrecognised';
  }
}

type Scoped = { scope: Scope; invocationId: string };

function reachOf(request: Scoped): HostReach {
  return { scope: scopeOf(request.scope), invocationId: request.invocationId };
}

function tokenOf(metadata: Metadata): string {
  const value = metadata.get('authorization')[0];
  return bearerToken(typeof value === 'string' ? value : undefined);
}

/** One unary handler: the caller's token and request in, the answer or a status out. */
function unary<Req, Res>(answer: (token: string, request: Req) => Promise<Res>) {
  return (call: ServerUnaryCall<Req, Res>, reply: sendUnaryData<Res>): void => {
    answer(tokenOf(call.metadata), call.request).then(
      (response) => reply(null, response),
      (error: unknown) => {
        // Anything else was already turned into a HostCallError; this is the last guard.
        if (error instanceof HostCallError) reply({ code: STATUS[error.code], details: error.message });
        else reply({ code: status.INTERNAL, details: 'the host failed to answer' });
      },
    );
  };
}

/** The `toolport.plugin.v1.Host` service over HostRequests. */
export function hostHandlers(requests: HostRequests): HostServer {
  return {
    getConfig: unary(async (token, request: { invocationId: string }) => ({ valuesJson: await requests.getConfig(token, request.invocationId) })),
    getState: unary(async (token, request: Scoped & { key: string }) => requests.getState(token, request.key, reachOf(request))),
    setState: unary(async (token, request: Scoped & { key: string; valueJson: string }) => {
      await requests.setState(token, request.key, request.valueJson, reachOf(request));
      return {};
    }),
    deleteState: unary(async (token, request: Scoped & { key: string }) => ({ deleted: await requests.deleteState(token, request.key, reachOf(request)) })),
    listState: unary(async (token, request: Scoped & { prefix: string; limit: number; pageToken: string }) =>
      requests.listState(token, request.prefix, request.limit, request.pageToken, reachOf(request)),
    ),
    getSecret: unary(async (token, request: Scoped & { key: string }) => requests.getSecret(token, request.key, reachOf(request))),
    setSecret: unary(async (token, request: Scoped & { key: string; value: string }) => {
      await requests.setSecret(token, request.key, request.value, reachOf(request));
      return {};
    }),
    deleteSecret: unary(async (token, request: Scoped & { key: string }) => ({ deleted: await requests.deleteSecret(token, request.key, reachOf(request)) })),
  };
}
