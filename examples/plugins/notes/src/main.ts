import { serve } from '@toolport/plugin-sdk';
import { noteTools } from './note-tools';
import { NotesStore } from './notes-store';

void serve({ tools: noteTools(new NotesStore()) });
