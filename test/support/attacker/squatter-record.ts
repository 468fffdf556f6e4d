import { existsSync, readFileSync } from 'node:fs';

/** One thing the squatter received: an HTTP request or upgrade with its headers, or a frame's text. */
export type SquatterEntry =
  | { kind: 'http' | 'upgrade'; connection: number; method: string; url: string; headers: Record<string, unknown>; body?: string }
  | { kind: 'frame'; connection: number; text: string }
  /** Raw bytes as a connection sent them (latin1), from the HTTP squatter. */
  | { kind: 'bytes'; connection: number; text: string };

/** A frame the squatter received, parsed (`undefined` fields when it was not a frame at all). */
export interface ReceivedFrame {
  connection: number;
  id?: string;
  type?: string;
  action?: string;
  payload?: { code?: string; message?: string } & Record<string, unknown>;
}

/** The squatter's record so far: one JSON line per entry, appended as they arrive. */
export function readSquatterRecord(file: string): SquatterEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as SquatterEntry);
}

/** The frames in the record, parsed. */
export function receivedFrames(entries: SquatterEntry[]): ReceivedFrame[] {
  return entries.flatMap((entry) => {
    if (entry.kind !== 'frame') return [];
    try {
      return [{ connection: entry.connection, ...(JSON.parse(entry.text) as Omit<ReceivedFrame, 'connection'>) }];
    } catch {
      return [{ connection: entry.connection }];
    }
  });
}
