import type { WebSocket } from 'ws';
import { CatalogPublisher, type CatalogPush, type PushAnswer } from '../../application/ports/catalog-publisher';
import { ACTIONS, MAX_FRAME_BYTES, type Frame } from './frames';
import type { ClientApprovalAnswer, ClientApprovalQuestion } from '../../application/ports/link-messages';
import { askClientPayload, catalogPushPayloadText, decodeClientAnswer, decodePushAnswer } from './link-payloads';

interface Waiting {
  settle(frame: Frame): void;
  drop(reason: string): void;
}

/**
 * The agentctl links this backend holds, one per session (a newer link replaces an older
 * one), and the requests the backend sends over them: `catalog.push`, whose payload is
 * serialised once for every target of a push.
 */
export class WsAgentctlLinks extends CatalogPublisher {
  private readonly sockets = new Map<string, WebSocket>();
  private readonly waiting = new Map<WebSocket, Map<string, Waiting>>();
  private nextId = 0;

  /** Registers a session's new link; answers the one it replaces, if any. */
  add(sessionId: string, ws: WebSocket): WebSocket | undefined {
    const previous = this.sockets.get(sessionId);
    this.sockets.set(sessionId, ws);
    this.waiting.set(ws, new Map());
    return previous;
  }

  /** Forgets a closed link; true when it was the session's current one (not a replaced one). */
  remove(sessionId: string, ws: WebSocket): boolean {
    for (const waiting of this.waiting.get(ws)?.values() ?? []) waiting.drop('the link closed');
    this.waiting.delete(ws);
    if (this.sockets.get(sessionId) !== ws) return false;
    this.sockets.delete(sessionId);
    return true;
  }

  /** Hands an agentctl's answer to the backend request it answers; false when it answers none. */
  settle(ws: WebSocket, frame: Frame): boolean {
    const waiting = this.waiting.get(ws)?.get(frame.id);
    if (!waiting) return false;
    waiting.settle(frame);
    return true;
  }

  count(): number {
    return this.sockets.size;
  }

  /** Closes every link (shutdown). */
  closeAll(code: number, reason: string): void {
    for (const ws of this.sockets.values()) ws.close(code, reason);
  }

  linkedSessions(): string[] {
    return [...this.sockets.keys()];
  }

  isLinked(sessionId: string): boolean {
    return this.sockets.has(sessionId);
  }

  async push(sessionIds: readonly string[], push: CatalogPush, timeoutMs: number): Promise<Map<string, PushAnswer | Error>> {
    const payload = catalogPushPayloadText(push);
    const answers = await Promise.all(sessionIds.map(async (sessionId) => [sessionId, await this.request(sessionId, payload, timeoutMs)] as const));
    return new Map(answers);
  }

  /**
   * `mcp.ask_client` about the invoke `requestId` on link `ws`: resolves the agentctl's answer,
   * `unsupported` for an error frame or a closed link, `timeout` when none came within `timeoutMs`.
   */
  askClient(ws: WebSocket, requestId: string, question: ClientApprovalQuestion, timeoutMs: number): Promise<ClientApprovalAnswer> {
    const waitingOn = this.waiting.get(ws);
    if (!waitingOn || ws.readyState !== ws.OPEN) return Promise.resolve('unsupported');
    const id = `b${++this.nextId}`;
    return new Promise((resolve) => {
      const finish = (answer: ClientApprovalAnswer): void => {
        clearTimeout(timer);
        waitingOn.delete(id);
        resolve(answer);
      };
      const timer = setTimeout(() => finish('timeout'), timeoutMs);
      waitingOn.set(id, { settle: (frame) => finish(decodeClientAnswer(frame)), drop: () => finish('unsupported') });
      ws.send(JSON.stringify({ id, type: 'request', action: ACTIONS.askClient, payload: askClientPayload(requestId, question) }));
    });
  }

  private request(sessionId: string, payloadText: string, timeoutMs: number): Promise<PushAnswer | Error> {
    const ws = this.sockets.get(sessionId);
    const waitingOn = ws && this.waiting.get(ws);
    if (!ws || !waitingOn || ws.readyState !== ws.OPEN) return Promise.resolve(new Error('no link to this session'));
    const id = `b${++this.nextId}`;
    // The payload was serialised once for every target: only the frame around it is per target.
    const text = `{"id":"${id}","type":"request","action":"${ACTIONS.catalogPush}","payload":${payloadText}}`;
    if (Buffer.byteLength(text) > MAX_FRAME_BYTES) return Promise.resolve(new Error(`the catalog exceeds the ${MAX_FRAME_BYTES}-byte frame limit`));
    return new Promise((resolve) => {
      const finish = (answer: PushAnswer | Error): void => {
        clearTimeout(timer);
        waitingOn.delete(id);
        resolve(answer);
      };
      const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      waitingOn.set(id, {
        settle: (frame) => finish(decodePushAnswer(frame)),
        drop: (reason) => finish(new Error(reason)),
      });
      ws.send(text);
    });
  }
}
