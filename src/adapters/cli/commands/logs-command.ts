import type { LogRecord } from '../../../api';
import { EXIT, UsageError } from '../exit-codes';
import { formatLogRecord } from '../logs/log-line';
import { LiveRecords } from '../logs/live-records';
import type { CliIo, CommandHandlers, CommandInput } from '../program';
import { printAnswer, runApiWork, withApiClient } from './api-command';

/** The backend's live channel sends a heartbeat every 15 s: four missed ones mean it is gone. */
const STREAM_IDLE_MS = 60_000;
const MAX_LINES = 1000;

function linesOf(input: CommandInput): number {
  const text = String(input.options.limit ?? input.options.lines ?? '100');
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw new UsageError(`--lines: expected a whole number from 1 to ${MAX_LINES}, got ${JSON.stringify(text)}`);
  return Math.min(Number(text), MAX_LINES);
}

const human = (records: LogRecord[]): string => records.map(formatLogRecord).join('');

/**
 * `toolport plugin logs <id> [--lines N] [--follow]`: the plugin's recent records the backend
 * kept, as readable lines (`--json`: the API's bare array). With `--follow` it then prints each
 * new record from the live channel (`--json`: every record, kept and new, one JSON line each)
 * until Ctrl-C or SIGTERM (exit 0), or until the backend goes away (exit 3, saying so).
 */
export function logsCommand(io: CliIo): Pick<CommandHandlers, 'plugin.logs'> {
  return {
    'plugin.logs': async (input) => {
      const request = { params: { id: input.args[0] }, query: { limit: String(linesOf(input)) } };
      if (input.options.follow !== true) return runApiWork(io, input, (client) => client.call('GET /api/v1/plugins/:id/logs', request), human);
      const print = (record: LogRecord): void => io.stdout(input.global.json ? `${JSON.stringify(record)}\n` : formatLogRecord(record));
      return withApiClient(io, input, async (client) => {
        // Listen first, then read what was kept: a record written in between is in one or both, never lost.
        const opened = await client.stream('/api/v1/events', STREAM_IDLE_MS);
        if ('refused' in opened) return printAnswer(io, input, opened.refused, human);
        const live = new LiveRecords(opened.response, input.args[0]);
        const kept = await client.call('GET /api/v1/plugins/:id/logs', request).catch((error: unknown) => {
          live.stop();
          throw error;
        });
        if (!kept.ok) {
          live.stop();
          return printAnswer(io, input, kept, human);
        }
        live.printFrom(kept.body, print);
        if ((await live.ended) === 'interrupted') return EXIT.ok;
        io.stderr('toolport: the backend went away; no more records will come\n');
        return EXIT.unreachable;
      });
    },
  };
}
