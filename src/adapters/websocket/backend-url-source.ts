import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTCTL_WS_PATH } from '../../application/agentctl-protocol';

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

  private fromDataDir(): string | undefined {
    if (!this.dataDir) return undefined;
    try {
      const parsed: unknown = JSON.parse(readFileSync(join(this.dataDir, 'backend.json'), 'utf8'));
      const url = (parsed as { url?: unknown } | null)?.url;
      return typeof url === 'string' && url.length > 0 ? url : undefined;
    } catch {
      return undefined; // absent or being replaced: fall back, retry on the next dial
    }
  }
}
