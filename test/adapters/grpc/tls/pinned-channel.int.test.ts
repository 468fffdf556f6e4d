import { Metadata, Server } from '@grpc/grpc-js';
import { HealthCheckResponse_ServingStatus, HealthClient, HealthService } from '../../../../src/adapters/grpc/generated/grpc/health/v1/health';
import { ClientVerifyingServerCredentials } from '@toolport/plugin-sdk/protocol';
import { PINNED_CHANNEL_OPTIONS, pinnedChannelCredentials } from '../../../../src/adapters/grpc/tls/pinned-channel-credentials';
import { createSelfSignedCertificate, type SelfSignedCertificate } from '@toolport/plugin-sdk/protocol';

/** Both ends of the AutoMTLS channel in one process, over a real loopback socket. */
describe('pinned mutual TLS channel', () => {
  const host = createSelfSignedCertificate();
  const served = createSelfSignedCertificate();
  let server: Server;
  let target: string;

  beforeAll(async () => {
    server = new Server();
    server.addService(HealthService, {
      check: (_call: unknown, reply: (e: null, r: { status: number }) => void) => reply(null, { status: HealthCheckResponse_ServingStatus.SERVING }),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', new ClientVerifyingServerCredentials(host.certPem, served), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    target = `127.0.0.1:${port}`;
  });
  afterAll(() => server.forceShutdown());

  async function check(client: SelfSignedCertificate, pinned: Buffer): Promise<string> {
    const health = new HealthClient(target, pinnedChannelCredentials(client, pinned), PINNED_CHANNEL_OPTIONS);
    try {
      return await new Promise((resolve) =>
        health.check({ service: 'plugin' }, new Metadata(), { deadline: Date.now() + 2000 }, (error, response) =>
          resolve(error ? `${error.code} ${error.details}` : `status ${response!.status}`),
        ),
      );
    } finally {
      health.close();
    }
  }

  it('connects when the server presents exactly the pinned certificate and the client presents the one the server trusts', async () => {
    expect(await check(host, served.der)).toBe('status 1');
  });

  it('refuses a server presenting any other certificate, even one naming localhost', async () => {
    expect(await check(host, createSelfSignedCertificate().der)).toMatch(/^14 /);
  });

  it('is refused by the server when the client presents another certificate', async () => {
    expect(await check(createSelfSignedCertificate(), served.der)).toMatch(/^14 /);
  });
});
