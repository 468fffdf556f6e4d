import type { IncomingMessage } from 'node:http';
import { createParser } from 'eventsource-parser';
import type { LogRecord } from '../../../api';

/** Why following stopped: the operator asked (Ctrl-C, SIGTERM), or the stream ended under us. */
export type FollowEnding = 'interrupted' | 'backend_gone';

/**
 * The live channel's `log` events for one plugin: held until the kept records are printed,
 * then printed as they come. `ended` settles on the first SIGINT or SIGTERM, or when the
 * backend closes the stream; the stream is closed then and the signal handlers removed.
 */
export class LiveRecords {
  readonly ended: Promise<FollowEnding>;
  private held: LogRecord[] | null = [];
  private print: ((record: LogRecord) => void) | null = null;

  constructor(
    private readonly response: IncomingMessage,
    private readonly pluginId: string,
  ) {
    const events = createParser({
      onEvent: (event) => {
        if (event.event !== 'log') return;
        const record = parseRecord(event.data);
        if (record?.plugin_id !== this.pluginId) return;
        if (this.held) this.held.push(record);
        else this.print?.(record);
      },
    });
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => events.feed(chunk));
    let onSignal: () => void = () => undefined;
    this.ended = new Promise<FollowEnding>((resolve) => {
      onSignal = () => resolve('interrupted');
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const gone = (): void => resolve('backend_gone');
      response.on('end', gone);
      response.on('error', gone);
      response.on('close', gone);
    }).then((ending) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      this.stop();
      return ending;
    });
  }

  /** Prints the kept records, then the held live ones they do not already hold, then each new one. */
  printFrom(kept: LogRecord[], print: (record: LogRecord) => void): void {
    const seen = new Set(kept.map((record) => JSON.stringify(record)));
    for (const record of kept) print(record);
    for (const record of this.held ?? []) if (!seen.has(JSON.stringify(record))) print(record);
    this.held = null;
    this.print = print;
  }

  stop(): void {
    this.response.destroy();
  }
}

function parseRecord(data: string): LogRecord | null {
  try {
    const value = JSON.parse(data) as LogRecord | null;
    return value && typeof value === 'object' && typeof value.plugin_id === 'string' ? value : null;
  } catch {
    return null;
  }
}
