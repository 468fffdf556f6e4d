import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSecureContext } from 'node:tls';
import { resolve } from 'node:path';
import { UsageError } from '../adapters/cli/exit-codes';

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

/**
 * The backend's address cannot be listened on: a busy or privileged port is a runtime refusal
 * (exit 1), an address this machine does not have is bad usage (exit 2). One line, no stack.
 */
export class ListenError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'ListenError';
  }

  /** `flags`: the options that chose the address (`--port`/`--host`, or agentctl's `--mcp-port`/`--mcp-host`). */
  static of(error: unknown, host: string, port: number, flags = { port: '--port', host: '--host' }): ListenError | null {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    const where = `${host}:${port}`;
    if (code === 'EADDRINUSE') {
      return new ListenError(
        `cannot listen on ${where}: the port is in use by another process (choose another with ${flags.port}, or ${flags.port} 0 for a free one)`,
        1,
      );
    }
    if (code === 'EACCES')
      return new ListenError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges; choose another with ${flags.port})`, 1);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      return new ListenError(`cannot listen on ${where}: ${flags.host} ${JSON.stringify(host)} is not an address of this machine (${code})`, 2);
    }
    return null;
  }
}
