import { credentials, Metadata, status as grpcStatus } from '@grpc/grpc-js';
import type { ChannelOptions, ServiceError } from '@grpc/grpc-js';
import { GRPCControllerClient } from './generated/plugin/grpc_controller';
import { PluginClient } from './generated/toolport/plugin/v1/plugin';
import { HealthCheckResponse_ServingStatus, HealthClient } from './generated/grpc/health/v1/health';
import type { PluginEndpoint } from './handshake';

/** Just above the §6 result limit (1 MiB of text + structured content), so framing fits. */
export const MAX_RECEIVE_BYTES = 1024 * 1024 + 64 * 1024;

/** The service name whose health the host checks (go-plugin's convention). */
export const HEALTH_SERVICE_NAME = 'plugin';

const CHANNEL_OPTIONS: ChannelOptions = {
  // One call means one call: no transparent retry may ever re-send a tool invocation.
  'grpc.enable_retries': 0,
  'grpc.max_receive_message_length': MAX_RECEIVE_BYTES,
};

/**
 * One gRPC channel to one plugin process, with its three clients sharing it. A restarted
 * process gets a new connection: a channel never outlives the process it was made for.
 */
export class PluginConnection {
  readonly plugin: PluginClient;
  private readonly controller: GRPCControllerClient;
  private readonly health: HealthClient;

  constructor(endpoint: PluginEndpoint) {
    this.plugin = new PluginClient(endpoint.target, credentials.createInsecure(), CHANNEL_OPTIONS);
    const shared = { channelOverride: this.plugin.getChannel() };
    this.controller = new GRPCControllerClient(endpoint.target, credentials.createInsecure(), shared);
    this.health = new HealthClient(endpoint.target, credentials.createInsecure(), shared);
  }

  /** Resolves null when the plugin reports SERVING within `timeoutMs`, else the reason it is not healthy. */
  checkHealth(timeoutMs: number): Promise<string | null> {
    return new Promise((resolve) => {
      const deadline = Date.now() + timeoutMs;
      this.health.check({ service: HEALTH_SERVICE_NAME }, new Metadata(), { deadline }, (error, response) => {
        if (error) resolve(`health check failed: ${describeGrpcError(error)}`);
        else if (response?.status !== HealthCheckResponse_ServingStatus.SERVING) resolve(`health check answered status ${response?.status ?? 0}, not SERVING`);
        else resolve(null);
      });
    });
  }

  /** Asks the plugin to stop gracefully; resolves true when it acknowledged within `timeoutMs`. */
  requestShutdown(timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      this.controller.shutdown({}, new Metadata(), { deadline: Date.now() + timeoutMs }, (error) => resolve(!error));
    });
  }

  close(): void {
    // The clients share one channel, so closing it through one closes it for all.
    this.plugin.close();
  }
}

export function describeGrpcError(error: ServiceError): string {
  const name = grpcStatus[error.code] ?? String(error.code);
  return error.details ? `${name}: ${error.details}` : name;
}
