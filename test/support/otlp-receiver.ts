import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/JSON export carried it, with the service that sent it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

/** One POST as it arrived: its headers and its body, unparsed. */
export interface ReceivedExport {
  headers: IncomingHttpHeaders;
  body: string;
  /** The body's bytes, for a protobuf export. */
  bytes: Buffer;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{ spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: OtlpAttribute[] }> }>;
  }>;
}

/**
 * An OTLP/HTTP collector for tests: a plain HTTP server on 127.0.0.1 accepting `POST
 * /v1/traces` in the JSON encoding, keeping every request whole so a test can look for a
 * value in anything that was exported.
 */
export class OtlpReceiver {
  readonly exports: ReceivedExport[] = [];
  private server: Server | undefined;
  private address: AddressInfo | undefined;

  /** Listens on `port` (0: any free one). */
  async start(port = 0): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const bytes = Buffer.concat(chunks);
        if (req.method === 'POST' && req.url === '/v1/traces') this.exports.push({ headers: req.headers, body: bytes.toString('utf8'), bytes });
        // Answered as a collector does: an empty ExportTraceServiceResponse in the request's encoding.
        const protobuf = req.headers['content-type'] === 'application/x-protobuf';
        res
          .writeHead(req.url === '/v1/traces' ? 200 : 404, { 'content-type': protobuf ? 'application/x-protobuf' : 'application/json' })
          .end(protobuf ? '' : '{}');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.address = server.address() as AddressInfo;
    return this;
  }

  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  get url(): string {
    return `http://127.0.0.1:${this.address!.port}`;
  }

  /** Every span received so far. */
  spans(): ReceivedSpan[] {
    return this.exports.flatMap((received) => spansOf(JSON.parse(received.body) as OtlpExport));
  }

  /** The service names of the exports that carried request header `name`. */
  servicesSending(name: string): string[] {
    const services = this.exports.filter((e) => e.headers[name] !== undefined).flatMap((e) => spansOf(JSON.parse(e.body) as OtlpExport).map((s) => s.service));
    return [...new Set(services)].sort();
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function spansOf(body: OtlpExport): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        attributes: attributesOf(span.attributes),
      })),
    );
  });
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const { key, value } of list ?? [])
    attributes[key] = value.stringValue ?? value.boolValue ?? value.doubleValue ?? (value.intValue === undefined ? undefined : Number(value.intValue));
  return attributes;
}
