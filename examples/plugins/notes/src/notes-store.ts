import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface Note {
  id: number;
  text: string;
  tags: string[];
  created_at: string;
}

/** One task's notes as stored: a JSON file per task. */
interface TaskNotes {
  workspace_id: string;
  task_id: string;
  next_id: number;
  notes: Note[];
}

/**
 * Notes kept per task under the plugin's data dir (`TOOLPORT_PLUGIN_DATA_DIR`), which
 * Toolport keeps across versions and restarts and removes on uninstall. Each task is one
 * JSON file, replaced atomically (temporary file, fsync, rename), so a crash never leaves
 * half a file. Writes to one task are queued in this process so concurrent calls never lose
 * a note; during an upgrade two versions may briefly share the folder, and the last writer
 * of a task wins then.
 */
export class NotesStore {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly dir: string) {}

  async list(workspaceId: string, taskId: string): Promise<Note[]> {
    return (await this.read(workspaceId, taskId)).notes;
  }

  async add(workspaceId: string, taskId: string, text: string, tags: string[], maxNotes: number): Promise<{ note: Note; total: number }> {
    return this.serialized(this.fileFor(workspaceId, taskId), async () => {
      const book = await this.read(workspaceId, taskId);
      if (book.notes.length >= maxNotes) throw new Error(`this task already has ${maxNotes} notes, the most it can keep`);
      const note: Note = { id: book.next_id, text, tags, created_at: new Date().toISOString() };
      const next: TaskNotes = { ...book, next_id: book.next_id + 1, notes: [...book.notes, note] };
      await this.write(this.fileFor(workspaceId, taskId), next);
      return { note, total: next.notes.length };
    });
  }

  /** Task ids are arbitrary text, so the file name is a hash: no path tricks, any length. */
  private fileFor(workspaceId: string, taskId: string): string {
    const key = createHash('sha256').update(`${workspaceId}\0${taskId}`).digest('hex').slice(0, 40);
    return path.join(this.dir, `task-${key}.json`);
  }

  private async read(workspaceId: string, taskId: string): Promise<TaskNotes> {
    const empty: TaskNotes = { workspace_id: workspaceId, task_id: taskId, next_id: 1, notes: [] };
    try {
      return JSON.parse(await fs.readFile(this.fileFor(workspaceId, taskId), 'utf8')) as TaskNotes;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty;
      throw error;
    }
  }

  private async write(file: string, book: TaskNotes): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const handle = await fs.open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(JSON.stringify(book, null, 2));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fs.rename(temporary, file);
    } catch (error) {
      await fs.rm(temporary, { force: true });
      throw error;
    }
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
