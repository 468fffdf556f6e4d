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

  /** `approval.marks {tools}` to each linked session of `marks` (see CatalogPublisher); a session not linked is skipped. */
  sendMarks(marks: ReadonlyMap<string, readonly string[]>, timeoutMs: number): Promise<void> {
    const answered: Array<Promise<void>> = [];
    for (const [sessionId, tools] of marks) {
      const ws = this.sockets.get(sessionId);
      const waitingOn = ws && this.waiting.get(ws);
      if (!ws || !waitingOn || ws.readyState !== ws.OPEN) continue;
      const id = `b${++this.nextId}`;
      answered.push(
        new Promise<void>((resolve) => {
          const finish = (): void => {
            clearTimeout(timer);
            waitingOn.delete(id);
            resolve();
          };
          const timer = setTimeout(finish, timeoutMs);
          waitingOn.set(id, { settle: finish, drop: finish });
          ws.send(JSON.stringify({ id, type: 'request', action: ACTIONS.approvalMarks, payload: { tools } }));
        }),
      );
    }
    return Promise.all(answered).then(() => undefined);
  }

  /**
   * One frame for every target: the id is the push's own (answers are matched per link), so the
   * frame is encoded to one Buffer once and each link is handed that same Buffer. Links are
   * written to in slices of PUSH_SLICE, each slice in its own event-loop turn, so answers and
   * other traffic are read between slices; each slice has one timer, so every target has
   * `timeoutMs` from the moment it was written to.
   */
  push(sessionIds: readonly string[], push: CatalogPush, timeoutMs: number): Promise<Map<string, PushAnswer | Error>> {
    const answers = new Map<string, PushAnswer | Error>();
    if (sessionIds.length === 0) return Promise.resolve(answers);
    const id = `b${++this.nextId}`;
    const frame = Buffer.from(`{"id":"${id}","type":"request","action":"${ACTIONS.catalogPush}","payload":${catalogPushPayloadText(push)}}`);
    if (frame.length > MAX_FRAME_BYTES) {
      for (const sessionId of sessionIds) answers.set(sessionId, new Error(`the catalog exceeds the ${MAX_FRAME_BYTES}-byte frame limit`));
      return Promise.resolve(answers);
    }
    return new Promise((resolve) => {
      const waited = new Map<string, Map<string, Waiting>>();
      // A session named twice is sent to and answered once.
      let left = new Set(sessionIds).size;
      let sent = 0;
      const answer = (sessionId: string, result: PushAnswer | Error): void => {
        if (answers.has(sessionId)) return;
        answers.set(sessionId, result);
        waited.get(sessionId)?.delete(id);
        waited.delete(sessionId);
        if (--left > 0) return;
        for (const timer of timers) clearTimeout(timer);
        resolve(inOrder(sessionIds, answers));
      };
      const timers: Array<ReturnType<typeof setTimeout>> = [];
      const sendSlice = (): void => {
        const start = sent;
        const end = Math.min(sent + PUSH_SLICE, sessionIds.length);
        timers.push(
          setTimeout(() => {
            for (let i = start; i < end; i++) answer(sessionIds[i]!, new Error(`no answer within ${timeoutMs} ms`));
          }, timeoutMs),
        );
        for (; sent < end; sent++) {
          const sessionId = sessionIds[sent]!;
          if (answers.has(sessionId) || waited.has(sessionId)) continue;
          const ws = this.sockets.get(sessionId);
          const waitingOn = ws && this.waiting.get(ws);
          if (!ws || !waitingOn || ws.readyState !== ws.OPEN) {
            answer(sessionId, new Error('no link to this session'));
            continue;
          }
          waitingOn.set(id, {
            settle: (reply) => answer(sessionId, decodePushAnswer(reply)),
            drop: (reason) => answer(sessionId, new Error(reason)),
          });
          waited.set(sessionId, waitingOn);
          ws.send(frame, { binary: false });
        }
        if (sent < sessionIds.length && left > 0) setImmediate(sendSlice);
      };
      sendSlice();
    });
  }
}

/**
 * Links written to in one event-loop turn of a push: each write is a system call, and 10,000
 * in one turn would leave every answer (and every other request) unread until the last.
 */
export const PUSH_SLICE = 1000;

/** The answers in the order the sessions were named. */
function inOrder(sessionIds: readonly string[], answers: Map<string, PushAnswer | Error>): Map<string, PushAnswer | Error> {
  return new Map(sessionIds.map((sessionId) => [sessionId, answers.get(sessionId)!] as const));
}
