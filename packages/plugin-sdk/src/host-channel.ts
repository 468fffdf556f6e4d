import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { HostClient } from './generated/toolport/plugin/v1/host';
import { HostError, hostErrorFrom } from './host-error';

const CALL_DEADLINE_MS = 10_000;

/** One Host method of the generated client, in the 4-argument form that takes a deadline. */
export type Unary<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: { deadline: number },
  callback: (error: ServiceError | null, response: Res) => void,
) => unknown;

/**
 * A plugin process's one channel to its host: TOOLPORT_HOST_ADDR (a gRPC target, `unix:/…` or
 * `127.0.0.1:<port>`) with the bearer TOOLPORT_HOST_TOKEN this start was given. Connects on
 * the first call; no transparent retries (a write is made once or not at all); a deadline on
 * every call. A call rejects with a HostError, also when the variables are unset.
 */
export class HostChannel {
  private client: HostClient | undefined;
  private readonly address: string | undefined;
  private readonly token: string | undefined;

  constructor(env: NodeJS.ProcessEnv) {
    this.address = env.TOOLPORT_HOST_ADDR;
    this.token = env.TOOLPORT_HOST_TOKEN;
  }

  call<Req, Res>(pick: (client: HostClient) => Unary<Req, Res>, request: Req): Promise<Res> {
    if (!this.address || !this.token) {
      return Promise.reject(
        new HostError('UNAVAILABLE', 'no Host API: TOOLPORT_HOST_ADDR and TOOLPORT_HOST_TOKEN are unset (the plugin was not started by Toolport)'),
      );
    }
    this.client ??= new HostClient(this.address, credentials.createInsecure(), { 'grpc.enable_retries': 0 });
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${this.token}`);
    const method = pick(this.client).bind(this.client) as Unary<Req, Res>;
    return new Promise((resolve, reject) => {
      method(request, metadata, { deadline: Date.now() + CALL_DEADLINE_MS }, (error, response) => (error ? reject(hostErrorFrom(error)) : resolve(response)));
    });
  }

  close(): void {
    this.client?.close();
  }
}
