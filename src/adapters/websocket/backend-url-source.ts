import { readBackendInfo } from '../shared/backend-info-file';
import { AGENTCTL_WS_PATH } from './frames';

/**
 * Where agentctl finds the backend on each dial: `<data-dir>/backend.json` (re-read every try,
 * since a restarted backend may listen elsewhere), else the URL it was given.
 */
export class BackendUrlSource {
  constructor(
    private readonly backendUrl: string | undefined,
    private readonly dataDir: string | undefined,
  ) {}

  /** The WebSocket URL to dial now, or null when none is known. */
  wsUrl(): string | null {
    const base = this.fromDataDir() ?? this.backendUrl;
    if (!base) return null;
    try {
      const url = new URL(AGENTCTL_WS_PATH, base);
      if (url.protocol === 'http:') url.protocol = 'ws:';
      else if (url.protocol === 'https:') url.protocol = 'wss:';
      return url.toString();
    } catch {
      return null;
    }
  }

  /** Absent or unreadable: fall back to the given URL, and read again on the next dial. */
  private fromDataDir(): string | undefined {
    return this.dataDir ? readBackendInfo(this.dataDir)?.url : undefined;
  }
}
