import { PluginStore, type StoreTransaction } from '../../application/ports/plugin-store';
import { SerialQueue } from '../../application/shared/serial-queue';
import type { CatalogState } from '../../domain/catalog-revisions';
import type { PluginRecord } from '../../domain/plugin-record';
import type { SessionRecord } from '../../domain/session';

/** The part of the store a transaction changes, copied for the transaction and swapped in on commit. */
interface Committed {
  plugins: Map<string, PluginRecord>;
  lastInstallSeq: number;
  catalog: CatalogState | undefined;
}

/**
 * A PluginStore held in memory (tests, and a backend run without a data dir). Values are
 * deep-copied in and out so callers can never change what is stored behind its back, just as
 * with a database; a transaction writes to a draft that replaces the committed state only when
 * it succeeds.
 */
export class InMemoryPluginStore extends PluginStore {
  private committed: Committed = { plugins: new Map(), lastInstallSeq: 0, catalog: undefined };
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly queue = new SerialQueue();
  private bootCounter = 0;
  private closed = false;

  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      this.assertOpen();
      const draft: Committed = { ...this.committed, plugins: new Map(this.committed.plugins) };
      const result = await work(transactionOver(draft));
      this.assertOpen();
      this.committed = draft;
      return result;
    });
  }

  async listPlugins(): Promise<PluginRecord[]> {
    this.assertOpen();
    return listOf(this.committed);
  }

  async getPlugin(id: string): Promise<PluginRecord | undefined> {
    this.assertOpen();
    const record = this.committed.plugins.get(id);
    return record && copy(record);
  }

  async listSessions(): Promise<SessionRecord[]> {
    this.assertOpen();
    return [...this.sessions.values()].sort((a, b) => a.created_at.localeCompare(b.created_at)).map(copy);
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    this.assertOpen();
    const session = this.sessions.get(sessionId);
    return session && copy(session);
  }

  async findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | undefined> {
    this.assertOpen();
    const session = [...this.sessions.values()].find((s) => s.session_token_hash === tokenHash);
    return session && copy(session);
  }

  async saveSession(session: SessionRecord): Promise<void> {
    this.assertOpen();
    this.sessions.set(session.session_id, copy(session));
  }

  async incrementBootCounter(): Promise<number> {
    this.assertOpen();
    this.bootCounter += 1;
    return this.bootCounter;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the plugin store is closed');
  }
}

function transactionOver(draft: Committed): StoreTransaction {
  return {
    listPlugins: async () => listOf(draft),
    getPlugin: async (id) => {
      const record = draft.plugins.get(id);
      return record && copy(record);
    },
    savePlugin: async (record) => {
      draft.plugins.set(record.id, copy(record));
      draft.lastInstallSeq = Math.max(draft.lastInstallSeq, record.install_seq);
    },
    deletePlugin: async (id) => {
      draft.plugins.delete(id);
    },
    nextInstallSeq: async () => {
      draft.lastInstallSeq += 1;
      return draft.lastInstallSeq;
    },
    catalogState: async () => draft.catalog && { ...draft.catalog },
    saveCatalogState: async (state) => {
      draft.catalog = { ...state };
    },
  };
}

function listOf(state: Committed): PluginRecord[] {
  return [...state.plugins.values()].sort((a, b) => a.install_seq - b.install_seq).map(copy);
}

function copy<T>(value: T): T {
  return structuredClone(value);
}
