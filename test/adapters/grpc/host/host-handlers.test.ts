import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

/**
 * docs/plugin-protocol.md §13 as a plugin reads it: the failure table's statuses, in its order,
 * each with the core's failures it stands for. A failure the table does not cover is INTERNAL.
 */
const DOCUMENTED: Array<[keyof typeof status, HostErrorCode[]]> = [
  ['UNAUTHENTICATED', ['HOST_TOKEN_INVALID']],
  ['PERMISSION_DENIED', ['CAPABILITY_NOT_GRANTED', 'INVOCATION_NOT_IN_FLIGHT', 'INVOCATION_REQUIRED']],
  ['INVALID_ARGUMENT', ['ENTRY_INVALID', 'SCOPE_UNKNOWN']],
  ['RESOURCE_EXHAUSTED', ['KEY_LIMIT_REACHED']],
  ['UNAVAILABLE', ['NO_PLUGIN_RECORD', 'HOST_STOPPING']],
];

function documentedStatus(code: HostErrorCode): status {
  return status[DOCUMENTED.find(([, codes]) => codes.includes(code))?.[0] ?? 'INTERNAL'];
}

/** The statuses in the first column of §13's failure table (the one under "Failures are gRPC status codes"). */
function failureTableOfTheDocs(): string[] {
  const page = readFileSync(join(__dirname, '../../../../docs/plugin-protocol.md'), 'utf8');
  const section = page.slice(page.indexOf('\n## 13. '), page.indexOf('\n## 14. '));
  const table = section.slice(section.indexOf('Failures are gRPC status codes'));
  return [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((row) => row[1]);
}

describe('the Host service handlers', () => {
  it('take their statuses from the failure table the docs show plugin authors (every row, in order)', () => {
    expect(failureTableOfTheDocs()).toEqual(DOCUMENTED.map(([name]) => name));
  });

  it.each(HOST_ERROR_CODES.map((code) => [code]))('answer %s with its documented gRPC status and the message as details', async (code) => {
    expect(await answerTo(new HostCallError(code, 'why'))).toEqual({ code: documentedStatus(code), details: 'why' });
  });

  it('answer an unexpected failure INTERNAL without its message', async () => {
    expect(await answerTo(new Error('/secret/path'))).toEqual({ code: status.INTERNAL, details: 'the host failed to answer' });
  });
});
