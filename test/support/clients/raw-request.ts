import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  text: string;
  json: unknown;
}

/**
 * One HTTP request with a body of any size, written in chunks. A server may answer (say 413)
 * before it read the whole body and close the connection: the answer still counts, a write
 * error after it does not.
 */
export function rawRequest(url: string, options: { method: string; headers?: Record<string, string>; body?: Buffer | string }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body, 'utf8');
    const req = request(url, {
      method: options.method,
      headers: { ...(body ? { 'content-length': String(body.length) } : {}), connection: 'close', ...options.headers },
    });
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = undefined;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (!body) {
      req.end();
      return;
    }
    const chunk = 1 << 20;
    let offset = 0;
    const pump = (): void => {
      while (offset < body.length && !req.destroyed) {
        const slice = body.subarray(offset, offset + chunk);
        offset += slice.length;
        if (!req.write(slice)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}
