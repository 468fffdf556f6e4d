import { readBackendInfo } from '../shared/backend-info-file';
import { AGENTCTL_WS_PATH } from './frames';

/**
 * Where agentctl finds the backend on each dial: `<data-dir>/backend.json` (re-read every try,
 * since a restarted backend may listen elsewhere), then each URL it was given — several,
 * comma-separated, for replicas (docs/operations.md §10). It dials one until that fails or drops, then
 * the next in order, wrapping around.
 */
export class BackendUrlSource {
  private readonly given: string[];
  private index = 0;

  constructor(
    backendUrl: string | undefined,
    private readonly dataDir: string | undefined,
  ) {
    this.given = (backendUrl ?? '')
      .split(',')
      .map((url) => url.trim())
      .filter((url) => url !== '');
  }

  /** The WebSocket URL to dial now, or null when none is known. */
  wsUrl(): string | null {
    const candidates = this.candidates();
    if (candidates.length === 0) return null;
    try {
      const url = new URL(AGENTCTL_WS_PATH, candidates[this.index % candidates.length]);
      if (url.protocol === 'http:') url.protocol = 'ws:';
      else if (url.protocol === 'https:') url.protocol = 'wss:';
      return url.toString();
    } catch {
      return null;
    }
  }

  /** The link to the URL dialled last failed or dropped: the next dial tries the following one. */
  next(): void {
    this.index = (this.index + 1) % Math.max(1, this.candidates().length);
  }

  private candidates(): string[] {
    const recorded = this.fromDataDir();
    return [...new Set(recorded ? [recorded, ...this.given] : this.given)];
  }

  /** Absent or unreadable: fall back to the given URLs, and read again on the next dial. */
  private fromDataDir(): string | undefined {
    return this.dataDir ? readBackendInfo(this.dataDir)?.url : undefined;
  }
}
