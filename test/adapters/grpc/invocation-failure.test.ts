import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { invocationFailure } from '../../../src/adapters/grpc/invocation-failure';

function grpcError(code: status, details: string): ServiceError {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: new Metadata() });
}

const call = { pluginId: 'acme.tasks', localName: 'add', timeoutMs: 30000, aborted: false, processGone: false, deadlinePassed: false };

describe('a failed InvokeAgentTool call as a §6 code', () => {
  it.each([
    [status.INVALID_ARGUMENT, 'tag "x" is not known'],
    [status.INTERNAL, 'database handle lost'],
    [status.FAILED_PRECONDITION, 'not ready'],
    [status.UNIMPLEMENTED, 'no tool add'],
    [status.DEADLINE_EXCEEDED, 'upstream too slow'],
    [status.RESOURCE_EXHAUSTED, 'quota used up'],
  ])('is PLUGIN_ERROR naming the status a live plugin answered (%s)', (code, details) => {
    const error = invocationFailure(grpcError(code, details), call);
    expect(error.code).toBe('PLUGIN_ERROR');
    expect(error.message).toBe(`acme.tasks/add answered ${status[code]}: ${details}`);
  });

  it.each([
    ['the connection dropped', grpcError(status.UNAVAILABLE, 'Connection dropped')],
    ['the stream was reset under the call', grpcError(status.INTERNAL, 'Received RST_STREAM with code 2 (Internal server error)')],
    ['the stream was cancelled by the transport', grpcError(status.CANCELLED, 'Call cancelled')],
  ])('is PLUGIN_CRASHED when %s', (_what, error) => {
    expect(invocationFailure(error, call).code).toBe('PLUGIN_CRASHED');
  });

  it('keeps the host’s own outcomes: cancellation, exit, deadline and the size limit', () => {
    const any = grpcError(status.CANCELLED, 'Cancelled on client');
    expect(invocationFailure(any, { ...call, aborted: true }).code).toBe('CANCELLED');
    expect(invocationFailure(any, { ...call, processGone: true }).code).toBe('PLUGIN_CRASHED');
    expect(invocationFailure(grpcError(status.DEADLINE_EXCEEDED, 'Deadline exceeded'), { ...call, deadlinePassed: true }).code).toBe('TOOL_TIMEOUT');
    expect(invocationFailure(grpcError(status.RESOURCE_EXHAUSTED, 'Received message larger than max (2000000 vs 1114112)'), call).code).toBe(
      'RESULT_TOO_LARGE',
    );
  });
});
