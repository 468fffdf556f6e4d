import { createHash } from 'node:crypto';
import type { StateStore } from '@toolport/plugin-sdk';

export interface Note {
  id: number;
  text: string;
  tags: string[];
  created_at: string;
}

/** How much of a state value (at most 65536 bytes) one chunk of notes may fill. */
const CHUNK_BYTES = 60_000;

/** Where a call's notes live: its workspace's Host state, and the task within it. */
export interface NotesPlace {
  /** `context.host.workspace.state`: the host binds it to the call's workspace, never to an id the plugin sends. */
  state: StateStore;
  workspaceId: string;
  taskId: string;
}

/**
 * Notes kept per task in the Host state of the task's workspace (docs/plugin-protocol.md, the
 * Host API's WORKSPACE scope), which Toolport keeps across restarts, upgrades and backend
 * restarts and removes on uninstall; one workspace never sees another's. A task's notes are
 * stored in chunks of at most 60 KB under `task/<hash>/<chunk number>`, so a busy task uses a
 * few keys, not one per note. Writes to one task are queued in this process
 * so concurrent calls never lose a note; during an upgrade two versions may briefly share the
 * state, and the last writer of a chunk wins then.
 */
export class NotesStore {
  private readonly queues = new Map<string, Promise<unknown>>();

  async list(place: NotesPlace): Promise<Note[]> {
    return (await this.chunks(place)).flatMap((chunk) => chunk.notes);
  }

  async add(place: NotesPlace, text: string, tags: string[], maxNotes: number): Promise<{ note: Note; total: number }> {
    const prefix = this.prefixFor(place.taskId);
    return this.serialized(`${place.workspaceId}\0${prefix}`, async () => {
      const chunks = await this.chunks(place);
      const total = chunks.reduce((sum, chunk) => sum + chunk.notes.length, 0);
      if (total >= maxNotes) throw new Error(`this task already has ${maxNotes} notes, the most it can keep`);
      const last = chunks[chunks.length - 1];
      const previous = last?.notes[last.notes.length - 1];
      const note: Note = { id: (previous?.id ?? 0) + 1, text, tags, created_at: new Date().toISOString() };
      const grown = last && Buffer.byteLength(JSON.stringify([...last.notes, note])) <= CHUNK_BYTES ? last : undefined;
      if (grown) await place.state.set(grown.key, [...grown.notes, note]);
      else await place.state.set(`${prefix}${String(chunks.length).padStart(6, '0')}`, [note]);
      return { note, total: total + 1 };
    });
  }

  /** Task ids are arbitrary text, so the key holds a hash: any length, only key characters. */
  private prefixFor(taskId: string): string {
    return `task/${createHash('sha256').update(taskId).digest('hex').slice(0, 40)}/`;
  }

  private async chunks(place: NotesPlace): Promise<Array<{ key: string; notes: Note[] }>> {
    const keys: string[] = [];
    for await (const key of place.state.keys(this.prefixFor(place.taskId))) keys.push(key);
    return Promise.all(keys.map(async (key) => ({ key, notes: (await place.state.get<Note[]>(key)) ?? [] })));
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
