import { status, type Metadata, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import type { HostRequests } from '../../../application/host/host-requests';
import { HostCallError, type HostErrorCode } from '../../../domain/errors';
import { bearerToken } from '../../shared/bearer';
import type { HostServer } from '../generated/toolport/plugin/v1/host';

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
};

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
    getConfig: unary(async (token) => ({ valuesJson: await requests.getConfig(token) })),
    getState: unary(async (token, request: { key: string }) => requests.getState(token, request.key)),
    setState: unary(async (token, request: { key: string; valueJson: string }) => {
      await requests.setState(token, request.key, request.valueJson);
      return {};
    }),
    deleteState: unary(async (token, request: { key: string }) => ({ deleted: await requests.deleteState(token, request.key) })),
    listState: unary(async (token, request: { prefix: string; limit: number; pageToken: string }) =>
      requests.listState(token, request.prefix, request.limit, request.pageToken),
    ),
    getSecret: unary(async (token, request: { key: string }) => requests.getSecret(token, request.key)),
    setSecret: unary(async (token, request: { key: string; value: string }) => {
      await requests.setSecret(token, request.key, request.value);
      return {};
    }),
    deleteSecret: unary(async (token, request: { key: string }) => ({ deleted: await requests.deleteSecret(token, request.key) })),
  };
}
