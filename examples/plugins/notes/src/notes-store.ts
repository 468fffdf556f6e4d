import { createHash } from 'node:crypto';
import type { PluginHost } from '@toolport/plugin-sdk';

export interface Note {
  id: number;
  text: string;
  tags: string[];
  created_at: string;
}

/** How much of a state value (at most 65536 bytes) one chunk of notes may fill. */
const CHUNK_BYTES = 60_000;

/**
 * Notes kept per task in the plugin's Host state (docs/plugin-protocol.md, the Host API), which
 * Toolport keeps across restarts, upgrades and backend restarts and removes on uninstall. A
 * task's notes are stored in chunks of at most 60 KB under `task/<hash>/<chunk number>`, so a
 * busy task uses a few keys, not one per note. Writes to one task are queued in this process
 * so concurrent calls never lose a note; during an upgrade two versions may briefly share the
 * state, and the last writer of a chunk wins then.
 */
export class NotesStore {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly host: PluginHost) {}

  async list(workspaceId: string, taskId: string): Promise<Note[]> {
    return (await this.chunks(workspaceId, taskId)).flatMap((chunk) => chunk.notes);
  }

  async add(workspaceId: string, taskId: string, text: string, tags: string[], maxNotes: number): Promise<{ note: Note; total: number }> {
    const prefix = this.prefixFor(workspaceId, taskId);
    return this.serialized(prefix, async () => {
      const chunks = await this.chunks(workspaceId, taskId);
      const total = chunks.reduce((sum, chunk) => sum + chunk.notes.length, 0);
      if (total >= maxNotes) throw new Error(`this task already has ${maxNotes} notes, the most it can keep`);
      const last = chunks[chunks.length - 1];
      const previous = last?.notes[last.notes.length - 1];
      const note: Note = { id: (previous?.id ?? 0) + 1, text, tags, created_at: new Date().toISOString() };
      const grown = last && Buffer.byteLength(JSON.stringify([...last.notes, note])) <= CHUNK_BYTES ? last : undefined;
      if (grown) await this.host.state.set(grown.key, [...grown.notes, note]);
      else await this.host.state.set(`${prefix}${String(chunks.length).padStart(6, '0')}`, [note]);
      return { note, total: total + 1 };
    });
  }

  /** Task ids are arbitrary text, so the key holds a hash: any length, only key characters. */
  private prefixFor(workspaceId: string, taskId: string): string {
    return `task/${createHash('sha256').update(`${workspaceId}\0${taskId}`).digest('hex').slice(0, 40)}/`;
  }

  private async chunks(workspaceId: string, taskId: string): Promise<Array<{ key: string; notes: Note[] }>> {
    const keys: string[] = [];
    for await (const key of this.host.state.keys(this.prefixFor(workspaceId, taskId))) keys.push(key);
    return Promise.all(keys.map(async (key) => ({ key, notes: (await this.host.state.get<Note[]>(key)) ?? [] })));
  }

  private serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const settled = result.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return result;
  }
}
