import type { IncomingMessage, ServerResponse } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { ApplySnapshot } from '../../application/agentctl/apply-snapshot';
import { parseSnapshotText } from '../../domain/snapshot-text';
import { answerPluginTools, errorBody } from './control-api';
import { bearerMatches, type LoopbackGuard } from './http-guards';

const CONTROL_PATH = '/api/v1/mcp/plugin-tools';
const BODY_LIMIT = 64 * 1024 * 1024;
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * Everything of the agentctl's HTTP listener that is not `/mcp`, on node:http: the Host/Origin
 * checks (403), `GET /healthz`, and, when served, the control API `PUT /api/v1/mcp/plugin-tools`
 * (docs/agentctl.md, "The control API": bearer control token, a JSON body of at most 64 MB,
 * which may come gzip-, deflate- or br-encoded). Anything else is 404. Each refusal is the
 * error body of docs/agentctl.md; a body that is not JSON, not an object, or not declared
 * `application/json` is a 400.
 */
export class ControlEndpoint {
  constructor(
    private readonly guard: LoopbackGuard,
    private readonly controlToken: string,
    private readonly applySnapshot: ApplySnapshot | null,
  ) {}

  handle(req: IncomingMessage, res: ServerResponse): void {
    if (!this.guard.hostAllowed(req.headers.host)) return refuse(req, res, 403, errorBody('FORBIDDEN', 'Host not allowed'));
    if (!this.guard.originAllowed(req.headers.origin)) return refuse(req, res, 403, errorBody('FORBIDDEN', 'Origin not allowed'));
    const path = (req.url ?? '/').split('?', 1)[0];
    if ((req.method === 'GET' || req.method === 'HEAD') && path === '/healthz') return refuse(req, res, 200, { status: 'ok' });
    if (req.method !== 'PUT' || path !== CONTROL_PATH || this.applySnapshot === null) {
      return refuse(req, res, 404, errorBody('NOT_FOUND', `no ${req.method ?? ''} ${path} here`));
    }
    if (!bearerMatches(req.headers.authorization, this.controlToken)) {
      // One refusal body for both tokens, so a caller without one learns nothing about which endpoint it hit.
      res.setHeader('www-authenticate', 'Bearer');
      return refuse(req, res, 401, errorBody('UNAUTHORIZED', 'missing or invalid bearer token'));
    }
    const apply = this.applySnapshot;
    readJsonBody(req, (outcome) => {
      if (outcome.kind === 'too-large') return refuse(req, res, 413, errorBody('BAD_REQUEST', 'request body is too large'));
      if (outcome.kind === 'not-json') return refuse(req, res, 400, errorBody('BAD_REQUEST', 'body is not valid JSON'));
      let answer: [number, unknown];
      try {
        answer = answerPluginTools(apply, outcome.body);
      } catch {
        answer = [500, errorBody('INTERNAL', 'internal error')];
      }
      send(res, answer[0], answer[1]);
    });
  }
}

type BodyOutcome = { kind: 'json'; body: unknown } | { kind: 'not-json' } | { kind: 'too-large' };

/**
 * As express.json() did here: only a body declared `application/json` (any charset but a
 * UTF-8 one is refused), decoded from its content encoding, at most the limit once decoded,
 * an object or an array at its top.
 */
function readJsonBody(req: IncomingMessage, done: (outcome: BodyOutcome) => void): void {
  if (Number(req.headers['content-length']) > BODY_LIMIT) return drain(req, () => done({ kind: 'too-large' }));
  const type = req.headers['content-type'] ?? '';
  const charset = /;\s*charset=("?)([^";]+)\1/i.exec(type)?.[2]?.toLowerCase();
  const source = decoded(req);
  if (!JSON_TYPE.test(type) || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') || source === null) {
    return drain(req, () => done({ kind: 'not-json' }));
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (outcome: BodyOutcome): void => {
    if (finished) return;
    finished = true;
    done(outcome);
  };
  source.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > BODY_LIMIT) {
      if (source !== req) source.destroy();
      drain(req, () => finish({ kind: 'too-large' }));
    } else chunks.push(chunk);
  });
  source.once('error', () => drain(req, () => finish({ kind: 'not-json' })));
  source.once('end', () => {
    const text = Buffer.concat(chunks, size).toString('utf8');
    try {
      const body: unknown = parseSnapshotText(text);
      finish(body !== null && typeof body === 'object' ? { kind: 'json', body } : { kind: 'not-json' });
    } catch {
      finish({ kind: 'not-json' });
    }
  });
}

/** The request body as sent, or inflated from the encodings HTTP clients use; null for another. */
function decoded(req: IncomingMessage): Readable | null {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity') return req;
  const inflate = encoding === 'gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : null;
  return inflate === null ? null : req.pipe(inflate);
}

/** Reads the rest of a request it will not use, then answers: a reply before the body is read resets some clients. */
function drain(req: IncomingMessage, then: () => void): void {
  if (req.readableEnded) return then();
  req.once('end', then);
  req.once('error', then);
  req.resume();
}

function refuse(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  drain(req, () => send(res, status, body));
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
