import { connectivityState, credentials, Metadata, status as grpcStatus } from '@grpc/grpc-js';
import type { ChannelOptions, ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import { GRPCControllerClient } from './generated/plugin/grpc_controller';
import { GRPCStdioClient, StdioData_Channel, type StdioData } from './generated/plugin/grpc_stdio';
import { PluginClient } from './generated/toolport/plugin/v1/plugin';
import { HealthCheckResponse_ServingStatus, HealthClient } from './generated/grpc/health/v1/health';
import type { PluginEndpoint } from './handshake';
import { PINNED_CHANNEL_OPTIONS, pinnedChannelCredentials } from './tls/pinned-channel-credentials';
import type { SelfSignedCertificate } from '@toolport/plugin-sdk/protocol';

/** Just above the §6 result limit (1 MiB of text + structured content), so framing fits. */
export const MAX_RECEIVE_BYTES = 1024 * 1024 + 64 * 1024;

/** The service name whose health the host checks (go-plugin's convention). */
const HEALTH_SERVICE_NAME = 'plugin';

const CHANNEL_OPTIONS: ChannelOptions = {
  // One call means one call: no transparent retry may ever re-send a tool invocation.
  'grpc.enable_retries': 0,
  'grpc.max_receive_message_length': MAX_RECEIVE_BYTES,
};

/** What one health check found; `definitive` problems fail a start at once. */
export type HealthAnswer = { serving: true } | { serving: false; definitive: boolean; reason: string };

/**
 * One gRPC channel to one plugin process, with its clients sharing it: mutual TLS pinned to
 * the certificate of its handshake when it gave one, plaintext otherwise. A restarted process
 * gets a new connection: a channel never outlives the process it was made for.
 */
export class PluginConnection {
  readonly plugin: PluginClient;
  /** True when the channel is mutual TLS. */
  readonly tls: boolean;
  /** Where the channel goes: a unix socket, or TCP on loopback. */
  readonly network: 'unix' | 'tcp';
  private readonly controller: GRPCControllerClient;
  private readonly health: HealthClient;
  private readonly stdio: GRPCStdioClient;
  private stdioStream: ClientReadableStream<StdioData> | null = null;

  constructor(endpoint: PluginEndpoint, clientCertificate: SelfSignedCertificate) {
    const server = endpoint.serverCertificate;
    this.tls = server !== undefined;
    this.network = endpoint.network;
    const channelCredentials = server ? pinnedChannelCredentials(clientCertificate, server) : credentials.createInsecure();
    const options = server ? { ...CHANNEL_OPTIONS, ...PINNED_CHANNEL_OPTIONS } : CHANNEL_OPTIONS;
    this.plugin = new PluginClient(endpoint.target, channelCredentials, options);
    const shared = { channelOverride: this.plugin.getChannel() };
    this.controller = new GRPCControllerClient(endpoint.target, channelCredentials, shared);
    this.health = new HealthClient(endpoint.target, channelCredentials, shared);
    this.stdio = new GRPCStdioClient(endpoint.target, channelCredentials, shared);
  }

  /** Resolves null when the plugin reports SERVING within `timeoutMs`, else the reason it is not healthy. */
  async checkHealth(timeoutMs: number): Promise<string | null> {
    const answer = await this.healthAnswer(timeoutMs);
    return answer.serving ? null : answer.reason;
  }

  /**
   * One health check, telling a passing problem (no answer yet, NOT_SERVING) from a definitive
   * one that no wait can mend: no health service (UNIMPLEMENTED), or none for the `plugin`
   * service (NOT_FOUND, or SERVICE_UNKNOWN from a Watch-style answer).
   */
  healthAnswer(timeoutMs: number): Promise<HealthAnswer> {
    return new Promise((resolve) => {
      const deadline = Date.now() + timeoutMs;
      this.health.check({ service: HEALTH_SERVICE_NAME }, new Metadata(), { deadline }, (error, response) => {
        if (error) {
          const definitive = error.code === grpcStatus.UNIMPLEMENTED || error.code === grpcStatus.NOT_FOUND;
          resolve({ serving: false, definitive, reason: `health check failed: ${describeGrpcError(error)}` });
        } else if (response?.status !== HealthCheckResponse_ServingStatus.SERVING) {
          const status = response?.status ?? 0;
          const name = HealthCheckResponse_ServingStatus[status] ?? String(status);
          resolve({
            serving: false,
            definitive: status === HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN,
            reason: `health check answered ${name}, not SERVING`,
          });
        } else resolve({ serving: true });
      });
    });
  }

  /**
   * Asks the plugin to stop gracefully; resolves true when it acknowledged within `timeoutMs`:
   * a reply, or the connection closing during the call (go-plugin's server stops its gRPC
   * server inside the handler, so its reply never arrives).
   */
  requestShutdown(timeoutMs: number): Promise<boolean> {
    const wasConnected = this.plugin.getChannel().getConnectivityState(false) === connectivityState.READY;
    return new Promise((resolve) => {
      this.controller.shutdown({}, new Metadata(), { deadline: Date.now() + timeoutMs }, (error) =>
        resolve(!error || (wasConnected && error.code === grpcStatus.UNAVAILABLE)),
      );
    });
  }

  /**
   * Reads go-plugin's `plugin.GRPCStdio` stream, when the plugin serves it, until the
   * connection closes (then `onEnd`); each chunk goes to `onStderr` or `onStdout`. A plugin without it answers
   * UNIMPLEMENTED, which ends the call and nothing else.
   */
  readStdio(onStdout: (data: Buffer) => void, onStderr: (data: Buffer) => void, onEnd: () => void): void {
    const stream = this.stdio.streamStdio({});
    stream.once('close', onEnd);
    stream.on('data', (chunk: StdioData) => {
      if (chunk.channel === StdioData_Channel.STDERR) onStderr(Buffer.from(chunk.data));
      else if (chunk.channel === StdioData_Channel.STDOUT) onStdout(Buffer.from(chunk.data));
    });
    // Errors end the stream: UNIMPLEMENTED, or the process going away.
    stream.on('error', () => undefined);
    this.stdioStream = stream;
  }

  close(): void {
    this.stdioStream?.cancel();
    this.stdioStream = null;
    // The clients share one channel, so closing it through one closes it for all.
    this.plugin.close();
  }
}

export function describeGrpcError(error: ServiceError): string {
  const name = grpcStatus[error.code] ?? String(error.code);
  return error.details ? `${name}: ${error.details}` : name;
}
