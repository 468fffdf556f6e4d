import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import type { ApplySnapshot, ApplySnapshotResult } from '../../application/agentctl/apply-snapshot';

const CONTROL_PATH = '/api/v1/mcp/plugin-tools';
const CONTROL_BODY_LIMIT = 64 * 1024 * 1024;

/** `PUT /api/v1/mcp/plugin-tools`: 400 with the §9 error body when malformed, else 200 with the outcome. */
export function putPluginTools(applySnapshot: ApplySnapshot) {
  return (req: Request, res: Response): void => {
    const [status, body] = answer(applySnapshot.execute(req.body, 'control'));
    res.status(status).json(body);
  };
}

function answer(result: ApplySnapshotResult): [number, unknown] {
  if (!result.ok) return [400, { error: { code: 'BAD_REQUEST', message: 'malformed snapshot', details: result.violations } }];
  return [200, { outcome: result.outcome, generation: result.generation, revision: result.revision }];
}

export function errorBody(code: string, message: string, details: unknown = null): { error: { code: string; message: string; details: unknown } } {
  return { error: { code, message, details } };
}

export interface ControlPushChecks {
  /** Host and Origin acceptable and the control token carried. */
  admitted(req: IncomingMessage): boolean;
}

/**
 * The common catalog push (an admitted request with a plain JSON body of known length within
 * the limit) answered on node:http directly. A push reaches every agentctl of every session,
 * mostly on code the process has barely run: express's router, body parsing and `res.json`
 * (with its ETag hash) were most of its CPU. Returns false, touching nothing, for any other
 * request, which express then handles and refuses with the same rules (refused tokens or
 * hosts, odd content types, encodings, chunked, empty or oversized bodies, other paths).
 */
export function handleControlPush(req: IncomingMessage, res: ServerResponse, applySnapshot: ApplySnapshot, checks: ControlPushChecks): boolean {
  const length = plainJsonLength(req);
  if (length === undefined || length > CONTROL_BODY_LIMIT || !checks.admitted(req)) return false;
  readBody(req, length, (text) => {
    let value: unknown;
    try {
      value = parseStrictJson(text);
    } catch {
      send(res, 400, errorBody('BAD_REQUEST', 'body is not valid JSON'));
      return;
    }
    try {
      const [status, body] = answer(applySnapshot.execute(value, 'control'));
      send(res, status, body);
    } catch {
      send(res, 500, errorBody('INTERNAL', 'internal error'));
    }
  });
  return true;
}

/** The declared body length of a push this fast path takes, else undefined. */
function plainJsonLength(req: IncomingMessage): number | undefined {
  if (req.method !== 'PUT' || req.url !== CONTROL_PATH) return undefined;
  const { headers } = req;
  if (headers['transfer-encoding'] !== undefined) return undefined;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return undefined;
  const type = headers['content-type']?.toLowerCase().replace(/\s+/g, '');
  if (type !== 'application/json' && type !== 'application/json;charset=utf-8') return undefined;
  const declared = headers['content-length'];
  if (declared === undefined || !/^[0-9]{1,12}$/.test(declared)) return undefined;
  const length = Number(declared);
  return length === 0 ? undefined : length;
}

function readBody(req: IncomingMessage, length: number, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.once('end', () => done(Buffer.concat(chunks, length).toString('utf8')));
}

/** As express.json's strict mode: an object or array at the root, a UTF-8 BOM ignored. */
function parseStrictJson(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(body)?.[1];
  if (first !== '{' && first !== '[') throw new SyntaxError('not an object or array');
  return JSON.parse(body);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
