import WebSocket from 'ws';
import { ScramLinkProof } from '../../../src/adapters/websocket/scram-link-proof';
import { LinkCredentials } from '../../../src/application/link/link-credentials';

/** A frame as it arrived, parsed. */
export interface RawFrame {
  id: string;
  type: string;
  action?: string;
  payload?: { code?: string; message?: string } & Record<string, unknown>;
}

/**
 * The agentctl link as a peer without agentctl's code sees it: a socket, the frames that came
 * back in order, and the two SCRAM steps done by hand, so tests can probe each of them.
 */
export interface RawLink {
  socket: WebSocket;
  frames: RawFrame[];
  closed: Promise<{ code: number; reason: string }>;
  /** The next frame not read yet. */
  next(): Promise<RawFrame>;
  /** Sends a request frame and waits for the frame answering it. */
  request(id: string, action: string, payload: unknown): Promise<RawFrame>;
}

export function linkUrl(backendUrl: string): string {
  return `${backendUrl.replace(/^http/, 'ws')}/api/v1/agentctl/ws`;
}

/** Opens the socket and nothing more. */
export function openRawLink(url: string, options: WebSocket.ClientOptions = {}): Promise<RawLink> {
  const socket = new WebSocket(url, options);
  const frames: RawFrame[] = [];
  const waiters: Array<() => void> = [];
  socket.on('message', (data) => {
    frames.push(JSON.parse(String(data)) as RawFrame);
    waiters.splice(0).forEach((wake) => wake());
  });
  socket.on('error', () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => {
      resolve({ code, reason: String(reason) });
      waiters.splice(0).forEach((wake) => wake());
    }),
  );
  let read = 0;
  let isClosed = false;
  void closed.then(() => (isClosed = true));
  const next = async (): Promise<RawFrame> => {
    while (frames.length <= read) {
      if (isClosed) throw new Error('the link closed before the next frame');
      await new Promise<void>((wake) => waiters.push(wake));
    }
    return frames[read++]!;
  };
  const request = async (id: string, action: string, payload: unknown): Promise<RawFrame> => {
    socket.send(JSON.stringify({ id, type: 'request', action, payload }));
    for (;;) {
      const frame = await next();
      if (frame.id === id || frame.type === 'error') return frame;
    }
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, frames, closed, next, request }));
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    socket.once('error', reject);
  });
}

/**
 * Runs SCRAM-SHA-256 with `token` as agentctl does. Resolves with the refusal frame when the
 * backend refuses, undefined once both sides are proven (and then throws if the backend's
 * signature does not check out).
 */
export async function authenticateRawLink(link: RawLink, token: string): Promise<RawFrame | undefined> {
  const scram = new LinkCredentials(token, new ScramLinkProof()).exchange();
  const begun = await link.request('auth-1', 'auth.begin', { mechanism: 'SCRAM-SHA-256', message: scram.opening() });
  if (begun.type !== 'response') return begun;
  const final = scram.prove(String(begun.payload?.message));
  if (!final.ok) throw new Error(`the backend's challenge: ${final.reason}`);
  const finished = await link.request('auth-2', 'auth.finish', { message: final.value });
  if (finished.type !== 'response') return finished;
  if (!scram.backendProved(String(finished.payload?.message))) throw new Error('the backend could not prove itself');
  return undefined;
}

/** Opens and authenticates a link; throws when the backend refuses it. */
export async function openLink(url: string, token: string, options: WebSocket.ClientOptions = {}): Promise<RawLink> {
  const link = await openRawLink(url, options);
  const refused = await authenticateRawLink(link, token);
  if (refused) {
    link.socket.terminate();
    throw new Error(`link refused: ${JSON.stringify(refused)}`);
  }
  return link;
}
