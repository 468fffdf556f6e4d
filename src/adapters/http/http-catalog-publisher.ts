import { CatalogPublisher, type ApplyOutcome, type PushTarget } from '../../application/ports/catalog-publisher';
import type { CatalogSnapshot } from '../../domain/catalog';

const OUTCOMES: readonly string[] = ['applied', 'unchanged', 'stale'];

/** Pushes snapshots to agentctl control APIs over HTTP (`PUT /api/v1/mcp/plugin-tools`). */
export class HttpCatalogPublisher extends CatalogPublisher {
  async push(target: PushTarget, snapshot: CatalogSnapshot, timeoutMs: number): Promise<ApplyOutcome> {
    const response = await fetch(new URL('/api/v1/mcp/plugin-tools', target.controlUrl), {
      method: 'PUT',
      headers: { authorization: `Bearer ${target.controlToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(snapshot),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await response.json().catch(() => null)) as { outcome?: string } | null;
    if (!response.ok) throw new Error(`agentctl refused the snapshot with HTTP ${response.status}`);
    if (!body || typeof body.outcome !== 'string' || !OUTCOMES.includes(body.outcome)) {
      throw new Error('agentctl answered without an outcome');
    }
    return body.outcome as ApplyOutcome;
  }
}
