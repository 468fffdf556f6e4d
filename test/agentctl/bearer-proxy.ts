import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Stands in front of an agentctl for a client that cannot send a bearer token (the conformance
 * runner): adds the token and otherwise forwards each request as it came. A loopback Host or
 * Origin naming this proxy is rewritten to name the agentctl, as if the client had dialled it;
 * any other Host or Origin reaches the agentctl untouched, so its own checks still decide.
 */
export class BearerProxy {
  private constructor(
    private readonly http: Server,
    readonly url: string,
  ) {}

  static async start(target: string, token: string): Promise<BearerProxy> {
    const upstream = new URL(target);
    let ownPort = 0;
    const toTarget = (value: string | undefined): string | undefined =>
      value?.replace(new RegExp(`^((?:https?://)?(?:localhost|127\\.0\\.0\\.1|\\[::1\\])):${ownPort}$`), `$1:${upstream.port}`);
    const http = createServer((req, res) => {
      const headers = { ...req.headers, authorization: `Bearer ${token}`, host: toTarget(req.headers.host) };
      if (req.headers.origin !== undefined) headers.origin = toTarget(req.headers.origin);
      const forward = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      res.on('close', () => forward.destroy());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    ownPort = (http.address() as AddressInfo).port;
    return new BearerProxy(http, `http://127.0.0.1:${ownPort}${upstream.pathname}`);
  }

  async close(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise((resolve) => this.http.close(resolve));
  }
}
