import type { Server } from '@modelcontextprotocol/server';
import type { ToolRegistry } from '../../application/agentctl/tool-registry';
import type { Logger } from '../../application/ports/logger';

interface Audience {
  server: Server;
  initialized: boolean;
  /** Open listening streams; a notification reaches it only while one is open. */
  listening: number;
  /** The visible-tools fingerprint it was last told about (or saw when it initialized, or was last listed). */
  told: string;
  /** Its tools/list requests being answered: each answer carries the list as it is then. */
  listing: number;
}

/**
 * Sends `notifications/tools/list_changed`: exactly one per initialized session when its
 * visible tools change. The SDK drops a notification sent while a session's listening stream
 * is closed, so each session remembers what it was told and gets one catch-up when its
 * stream (re)opens after a change it missed.
 */
export class ToolListNotifier {
  private readonly audiences = new Map<string, Audience>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly logger: Logger,
  ) {
    this.unsubscribe = registry.onSwap(() => {
      for (const audience of this.audiences.values()) this.catchUp(audience);
    });
  }

  /** `alwaysListening` for transports with no separate listening stream (stdio). */
  add(sessionId: string, server: Server, alwaysListening: boolean): void {
    this.audiences.set(sessionId, { server, initialized: false, listening: alwaysListening ? 1 : 0, told: this.registry.fingerprint(), listing: 0 });
  }

  initialized(sessionId: string): void {
    const audience = this.audiences.get(sessionId);
    if (!audience) return;
    audience.initialized = true;
    audience.told = this.registry.fingerprint();
  }

  /**
   * Answers a tools/list of the session with `list`. A change while it waits (the first
   * snapshot, which a first tools/list waits for) is in the answer, so it is not announced
   * as well: an agent gets no list_changed for a list it already has (docs/agentctl.md §3).
   */
  async listed<T>(sessionId: string, list: () => Promise<T>): Promise<T> {
    const audience = this.audiences.get(sessionId);
    if (!audience) return list();
    audience.listing += 1;
    try {
      return await list();
    } finally {
      audience.listing -= 1;
      audience.told = this.registry.fingerprint();
    }
  }

  setListening(sessionId: string, listening: boolean): void {
    const audience = this.audiences.get(sessionId);
    if (!audience) return;
    audience.listening = Math.max(0, audience.listening + (listening ? 1 : -1));
    if (listening) this.catchUp(audience);
  }

  remove(sessionId: string): void {
    this.audiences.delete(sessionId);
  }

  close(): void {
    this.unsubscribe();
    this.audiences.clear();
  }

  private catchUp(audience: Audience): void {
    if (!audience.initialized || audience.listening === 0 || audience.listing > 0) return;
    const current = this.registry.fingerprint();
    if (audience.told === current) return;
    audience.told = current;
    audience.server.sendToolListChanged().catch((error: unknown) => {
      this.logger.debug({ err: error instanceof Error ? error.message : String(error) }, 'list_changed not delivered');
    });
  }
}
