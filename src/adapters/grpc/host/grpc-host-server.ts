import { randomBytes } from 'node:crypto';
import { chmodSync, lchownSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { HostRequests } from '../../../application/host/host-requests';
import type { HostSessions } from '../../../application/host/host-sessions';
import { HostAccess, type HostGrant, type HostPlacement, type HostProfile } from '../../../application/ports/host-access';
import type { Logger } from '../../../application/ports/logger';
import { HostService } from '../generated/toolport/plugin/v1/host';
import { hostHandlers } from './host-handlers';

/** A unix socket path stays under 100 bytes (docs/plugin-protocol.md §13; the kernel's limit is 108). */
const MAX_SOCKET_PATH_BYTES = 99;
const RUN_FOLDER_PREFIX = 'host-';
const SOCKET_NAME = 'host.sock';
/** Room for the largest request §10 allows (a 64 KiB value and its key) and framing. */
const MAX_REQUEST_BYTES = 128 * 1024;

export interface GrpcHostServerOptions {
  /** Where each grant gets its own folder (`<data-dir>/run`); made 0700. */
  runRoot: string;
}

/**
 * The Host API (docs/plugin-protocol.md §13) served by the backend over gRPC. Each grant binds its own
 * listener, a unix socket (0600) in a fresh 0700 folder `<run root>/host-<8 hex>/`, or
 * `127.0.0.1:<port>` when that path would reach 100 bytes, and opens a Host session whose
 * token names the plugin. A sandboxed start's grant listens on `host.sock` in its private
 * TMPDIR instead (the one folder it shares with the host; owned by the plugin's uid when it
 * has one). Releasing the grant ends the token and closes the listener.
 */
export class GrpcHostServer extends HostAccess {
  private readonly server = new Server({ 'grpc.max_receive_message_length': MAX_REQUEST_BYTES });
  private readonly open = new Set<HostGrant>();
  private closed = false;

  constructor(
    private readonly sessions: HostSessions,
    requests: HostRequests,
    private readonly options: GrpcHostServerOptions,
    private readonly logger: Logger,
  ) {
    super();
    this.server.addService(HostService, hostHandlers(requests));
    mkdirSync(options.runRoot, { recursive: true, mode: 0o700 });
    chmodSync(options.runRoot, 0o700);
  }

  /** Removes the grant folders a killed backend left (call while holding the data dir). */
  removeLeftovers(): void {
    for (const name of readdirSync(this.options.runRoot)) {
      if (name.startsWith(RUN_FOLDER_PREFIX)) rmSync(join(this.options.runRoot, name), { recursive: true, force: true });
    }
  }

  async grant(profile: HostProfile, placement?: HostPlacement): Promise<HostGrant> {
    if (this.closed) throw new Error('the Host API is closed');
    const own = placement === undefined;
    const folder = placement?.socketDir ?? join(this.options.runRoot, `${RUN_FOLDER_PREFIX}${randomBytes(4).toString('hex')}`);
    const socket = join(folder, SOCKET_NAME);
    const session = this.sessions.open(profile);
    let bound: string | undefined;
    const removeSocket = (): void => rmSync(own ? folder : socket, { recursive: true, force: true });
    try {
      if (Buffer.byteLength(socket) <= MAX_SOCKET_PATH_BYTES) {
        if (own) mkdirSync(folder, { mode: 0o700 });
        bound = `unix:${socket}`;
        await this.bind(bound);
        chmodSync(socket, 0o600);
        if (placement?.uid !== undefined) lchownSync(socket, placement.uid, placement.uid);
      } else if (own) {
        const port = await this.bind('127.0.0.1:0');
        bound = `127.0.0.1:${port}`;
        this.logger.warn({ plugin_id: profile.pluginId }, 'the Host API listens on 127.0.0.1: a socket path under the data dir would reach 100 bytes');
      } else {
        throw new Error(`the Host API socket path ${socket} would pass ${MAX_SOCKET_PATH_BYTES} bytes`);
      }
    } catch (error) {
      session.close();
      if (bound?.startsWith('unix:')) this.server.unbind(bound);
      removeSocket();
      throw error;
    }
    const address = bound;
    let released = false;
    const grant: HostGrant = {
      address,
      token: session.token,
      admit: (call) => session.admit(call),
      release: async () => {
        if (released) return;
        released = true;
        session.close();
        this.open.delete(grant);
        this.server.unbind(address);
        removeSocket();
      },
    };
    this.open.add(grant);
    return grant;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.open].map((grant) => grant.release()));
    this.server.forceShutdown();
  }

  private bind(target: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.bindAsync(target, ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port)));
    });
  }
}
