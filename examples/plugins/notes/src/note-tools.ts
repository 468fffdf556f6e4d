import type { ToolContext, ToolHandler, ToolResult } from '@toolport/plugin-sdk';
import type { Note, NotesPlace, NotesStore } from './notes-store';

const MAX_NOTES_PER_TASK = 2000;
const DEFAULT_LIMIT = 20;
const PREVIEW_CHARS = 160;

function preview(note: Note): string {
  const text = note.text.replace(/\s+/g, ' ').trim();
  const short = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
  const tags = note.tags.length > 0 ? ` [${note.tags.join(', ')}]` : '';
  return `#${note.id} ${note.created_at}${tags}: ${short}`;
}

function listing(heading: string, notes: Note[]): string {
  return notes.length === 0 ? `${heading}: none.` : [`${heading}:`, ...notes.map(preview)].join('\n');
}

function limitOf(args: Record<string, unknown>): number {
  return typeof args.limit === 'number' ? args.limit : DEFAULT_LIMIT;
}

/** Tags are compared and stored in lower case, without duplicates. */
function tagsOf(args: Record<string, unknown>): string[] {
  const tags = Array.isArray(args.tags) ? args.tags.map((t) => String(t).toLowerCase()) : [];
  return [...new Set(tags)];
}

/** The three tools of the `notes` plugin; arguments were validated against the manifest's schemas. */
export function noteTools(store: NotesStore): Record<string, ToolHandler> {
  const where = (context: ToolContext): NotesPlace => ({ state: context.host.workspace.state, workspaceId: context.workspaceId, taskId: context.taskId });

  const addNote = async (args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> => {
    const { note, total } = await store.add(where(context), String(args.text), tagsOf(args), MAX_NOTES_PER_TASK);
    return { text: `Saved note #${note.id} (${total} on this task).`, structuredContent: { note, total } };
  };

  const listNotes = async (args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> => {
    const tag = typeof args.tag === 'string' ? args.tag.toLowerCase() : undefined;
    const all = await store.list(where(context));
    const matching = tag === undefined ? all : all.filter((n) => n.tags.includes(tag));
    const notes = matching.slice(-limitOf(args)).reverse();
    const heading = `${matching.length} note(s) on this task${tag ? ` tagged "${tag}"` : ''}, newest first`;
    return { text: listing(heading, notes), structuredContent: { notes, total: matching.length } };
  };

  const searchNotes = async (args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> => {
    const query = String(args.query).toLowerCase();
    const words = query.split(/\s+/).filter((w) => w !== '');
    const found = (await store.list(where(context))).filter((note) => {
      const haystack = `${note.text}\n${note.tags.join(' ')}`.toLowerCase();
      return words.every((w) => haystack.includes(w));
    });
    const notes = found.slice(-limitOf(args)).reverse();
    return {
      text: listing(`${found.length} note(s) matching "${String(args.query)}", newest first`, notes),
      structuredContent: { query: String(args.query), notes, total_matches: found.length },
    };
  };

  return { add_note: addNote, list_notes: listNotes, search_notes: searchNotes };
}
