/**
 * An address (the backend's, or an agentctl's MCP listener) cannot be listened on: a busy or
 * privileged port is a runtime refusal (exit 1), an address this machine does not have is bad
 * usage (exit 2). One line, no stack.
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
