import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSecureContext } from 'node:tls';
import { resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../adapters/cli/exit-codes';
import { ListenError } from './listen-error';

// The backend's, and agentctl's (which reaches it without the rest of this file): see listen-error.ts.
export { ListenError };

/** `serve --tls-cert F --tls-key F`: the certificate chain (CA included, for agentctls to trust) and its key. */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** A TLS file that cannot be used; `toolport serve` exits 2 with this message, before listening. */
export class TlsSetupError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'TlsSetupError';
  }
}

/** A certificate and key read and checked together. */
export interface LoadedTls {
  cert: string;
  key: string;
}

/**
 * Reads and checks the TLS files before anything else starts, so a wrong one is one clear
 * error at start (TlsSetupError), not a failed handshake later.
 */
export function loadTls(tls: TlsFiles | undefined): LoadedTls | undefined {
  if (!tls) return undefined;
  const cert = readTlsFile(tls.certFile, '--tls-cert');
  const key = readTlsFile(tls.keyFile, '--tls-key');
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new TlsSetupError(`--tls-cert / --tls-key: ${tls.certFile} and ${tls.keyFile} are not a usable certificate and key (${(error as Error).message})`);
  }
  return { cert, key };
}

/** The backend's one listener for the API, the agentctl WebSocket and /metrics: http, or https (and so wss). */
export function createBackendServer(app: RequestListener, tls: LoadedTls | undefined): { server: Server; scheme: 'http' | 'https' } {
  if (!tls) return { server: createHttpServer(app), scheme: 'http' };
  return { server: createHttpsServer({ cert: tls.cert, key: tls.key }, app), scheme: 'https' };
}

/** What the listener hands its requests and upgrades to once the backend is open. */
export interface ListenerParts {
  /** The API, the console and /metrics. */
  api: RequestListener;
  /** The agentctl WebSocket, taking over upgrades on its path. */
  agentctls: { attach(server: Server): void; close(): void };
  /** Counts and caps connections before and after authentication (docs/operations.md §1). */
  connections: { attach(server: Server): void };
}

/**
 * The backend's listener. A replica registers with its URL, so it listens before the core
 * opens this start's catalog; until `open()` every request is answered 503 and an upgrade
 * finds no endpoint, so agentctls dialling that early retry.
 */
export class BackendListener {
  readonly server: Server;
  readonly scheme: 'http' | 'https';
  private opened = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly parts: ListenerParts,
    tls: LoadedTls | undefined,
  ) {
    ({ server: this.server, scheme: this.scheme } = createBackendServer((request, response) => this.handle(request, response), tls));
    parts.connections.attach(this.server);
  }

  /** Listens on `host:port`; an address that cannot be listened on is a ListenError naming it. */
  listen(host: string, port: number): Promise<AddressInfo> {
    return new Promise((done, fail) => {
      const failed = (error: unknown) => fail(ListenError.of(error, host, port) ?? error);
      this.server.once('error', failed);
      this.server.listen(port, host, () => {
        this.server.off('error', failed);
        done(this.server.address() as AddressInfo);
      });
    });
  }

  /** From now on the API answers and agentctls link. */
  open(): void {
    if (this.opened) return;
    this.opened = true;
    this.parts.agentctls.attach(this.server);
  }

  /** Stops taking links and connections, and cuts the open ones; `closed()` resolves once the server is closed. */
  stopListening(): void {
    this.parts.agentctls.close();
    this.server.closeAllConnections();
    this.closing ??= new Promise<void>((done) => this.server.close(() => done()));
  }

  closed(): Promise<void> {
    return this.closing ?? Promise.resolve();
  }

  private handle: RequestListener = (request, response) => {
    if (this.opened) this.parts.api(request, response);
    else unavailable(response);
  };
}

function unavailable(response: ServerResponse): void {
  response.statusCode = 503;
  response.end();
}

/** The file launched agentctls are told to trust (the served chain, never the key). */
export function trustFileFor(tls: TlsFiles | undefined): string | undefined {
  return tls ? resolve(tls.certFile) : undefined;
}

function readTlsFile(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new TlsSetupError(`${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}
