import path from 'node:path';
import { serve } from 'toolport/plugin-sdk';
import { noteTools } from './note-tools';
import { NotesStore } from './notes-store';

const dataDir = process.env.TOOLPORT_PLUGIN_DATA_DIR;
if (!dataDir) {
  // Without it notes would land in the version folder, which an upgrade deletes.
  process.stderr.write('toolport.notes needs TOOLPORT_PLUGIN_DATA_DIR, which Toolport sets when it starts the plugin.\n');
  process.exit(1);
}

void serve({ tools: noteTools(new NotesStore(path.join(dataDir, 'notes'))) });
