import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilePluginLogs } from '../../src/adapters/log-files/file-plugin-logs';
import { InMemoryPluginLogs } from '../../src/adapters/memory/in-memory-plugin-logs';
import { describePluginLogsContract } from './plugin-logs.contract';

describePluginLogsContract([
  ['InMemoryPluginLogs', (bounds) => ({ logs: new InMemoryPluginLogs(bounds), cleanup: () => undefined })],
  [
    'FilePluginLogs (a temp folder)',
    (bounds) => {
      const root = mkdtempSync(join(tmpdir(), 'toolport-logs-contract-'));
      const open = () => new FilePluginLogs(join(root, 'logs'), { ring: bounds });
      return { logs: open(), reopen: open, cleanup: () => rmSync(root, { recursive: true, force: true }) };
    },
  ],
]);
