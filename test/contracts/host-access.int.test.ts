import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { HostClient, Scope } from '../../src/adapters/grpc/generated/toolport/plugin/v1/host';
import { GrpcHostServer } from '../../src/adapters/grpc/host/grpc-host-server';
import { InMemoryHostAccess } from '../../src/adapters/memory/in-memory-host-access';
import type { HostRequests } from '../../src/application/host/host-requests';
import type { HostSessions } from '../../src/application/host/host-sessions';
import { HostCallError } from '../../src/domain/errors';
import { CapturingLogger } from '../support/capturing-logger';
import { describeHostAccessContract, type HostAnswer } from './host-access.contract';

/** The Host codes as a plugin tells them apart by gRPC status (docs/plugin-protocol.md §13). */
const REFUSAL: Partial<Record<status, string>> = {
  [status.UNAUTHENTICATED]: 'HOST_TOKEN_INVALID',
  [status.PERMISSION_DENIED]: 'CAPABILITY_NOT_GRANTED',
  [status.INVALID_ARGUMENT]: 'ENTRY_INVALID',
  // Nothing listens: the grant's address closed.
  [status.UNAVAILABLE]: 'UNREACHABLE',
};

/** One unary Host call over a real channel to `address`, the token as a bearer, as the SDKs send it. */
function grpcCall(
  address: string,
  token: string,
  call: (client: HostClient, metadata: Metadata, done: (error: ServiceError | null, value?: string) => void) => void,
) {
  return new Promise<HostAnswer>((resolve) => {
    const client = new HostClient(address, credentials.createInsecure());
    const metadata = new Metadata();
    if (token !== '') metadata.set('authorization', `Bearer ${token}`);
    call(client, metadata, (error, value) => {
      client.close();
      resolve(error ? { ok: false, refusal: REFUSAL[error.code] ?? `status ${error.code}: ${error.details}` } : { ok: true, value: value ?? '' });
    });
  });
}

const deadline = () => ({ deadline: Date.now() + 3000 });

/** The in-memory grants have no listener: an address answers while its grant is open. */
async function inMemoryCall(access: InMemoryHostAccess, address: string, work: () => Promise<string>): Promise<HostAnswer> {
  if (!access.open.some((entry) => entry.grant.address === address)) return { ok: false, refusal: 'UNREACHABLE' };
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof HostCallError) return { ok: false, refusal: error.code };
    throw error;
  }
}

function inMemory(requests: HostRequests, access: InMemoryHostAccess) {
  return {
    access,
    getConfig: (address: string, token: string) => inMemoryCall(access, address, () => requests.getConfig(token)),
    getState: (address: string, token: string, key: string) => inMemoryCall(access, address, async () => (await requests.getState(token, key)).valueJson),
    cleanup: async () => undefined,
  };
}

describeHostAccessContract([
  ['InMemoryHostAccess', ({ sessions, requests }) => inMemory(requests, new InMemoryHostAccess(sessions))],
  ['GrpcHostServer (real gRPC on its unix sockets)', (ports) => grpcHost(ports, 'run')],
  ['GrpcHostServer (real gRPC on 127.0.0.1, a run folder too deep for a socket path)', (ports) => grpcHost(ports, 'd'.repeat(100))],
]);

/** The gRPC Host server with its run folder at `runFolder` under a fresh temporary root, called by a real gRPC client. */
function grpcHost({ sessions, requests }: { sessions: HostSessions; requests: HostRequests }, runFolder: string) {
  const root = mkdtempSync(join(tmpdir(), 'tp-host-'));
  const access = new GrpcHostServer(sessions, requests, { runRoot: join(root, runFolder) }, new CapturingLogger());
  return {
    access,
    getConfig: (address: string, token: string) =>
      grpcCall(address, token, (client, metadata, done) => client.getConfig({ invocationId: '' }, metadata, deadline(), (e, r) => done(e, r?.valuesJson))),
    getState: (address: string, token: string, key: string) =>
      grpcCall(address, token, (client, metadata, done) =>
        client.getState({ key, scope: Scope.SCOPE_UNSPECIFIED, invocationId: '' }, metadata, deadline(), (e, r) => done(e, r?.valueJson)),
      ),
    cleanup: async () => rmSync(root, { recursive: true, force: true }),
  };
}
