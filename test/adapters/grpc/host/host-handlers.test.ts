import { Metadata, status, type ServerUnaryCall } from '@grpc/grpc-js';
import type { GetStateRequest, GetStateResponse } from '../../../../src/adapters/grpc/generated/toolport/plugin/v1/host';
import { hostHandlers } from '../../../../src/adapters/grpc/host/host-handlers';
import type { HostRequests } from '../../../../src/application/host/host-requests';
import { HOST_ERROR_CODES, HostCallError, type HostErrorCode } from '../../../../src/domain/errors';

/** The status and details a GetState call is answered with when HostRequests throws `error`. */
function answerTo(error: unknown): Promise<{ code?: number; details?: string }> {
  const requests = { getState: () => Promise.reject(error) } as unknown as HostRequests;
  const metadata = new Metadata();
  metadata.set('authorization', 'Bearer t');
  const call = { metadata, request: { key: 'k' } } as unknown as ServerUnaryCall<GetStateRequest, GetStateResponse>;
  return new Promise((resolve) => hostHandlers(requests).getState(call, (failure) => resolve(failure as { code?: number; details?: string })));
}

const EXPECTED: Record<HostErrorCode, status> = {
  HOST_TOKEN_INVALID: status.UNAUTHENTICATED,
  CAPABILITY_NOT_GRANTED: status.PERMISSION_DENIED,
  ENTRY_INVALID: status.INVALID_ARGUMENT,
  KEY_LIMIT_REACHED: status.RESOURCE_EXHAUSTED,
  NO_PLUGIN_RECORD: status.UNAVAILABLE,
  HOST_STOPPING: status.UNAVAILABLE,
  SECRET_UNREADABLE: status.INTERNAL,
};

describe('the Host service handlers', () => {
  it.each(HOST_ERROR_CODES.map((code) => [code]))('answer %s with its gRPC status and the message as details', async (code) => {
    expect(await answerTo(new HostCallError(code, 'why'))).toEqual({ code: EXPECTED[code], details: 'why' });
  });

  it('answer an unexpected failure INTERNAL without its message', async () => {
    expect(await answerTo(new Error('/secret/path'))).toEqual({ code: status.INTERNAL, details: 'the host failed to answer' });
  });
});
