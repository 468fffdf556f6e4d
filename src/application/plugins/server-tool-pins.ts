import { canonicalJson } from '../../domain/canonical-json';
import type { JsonValue } from '../../domain/json';
import { hasPinnedTools, pinServerTools, relistPinned } from '../../domain/pinned-server-tools';
import { describeClash, findNameClashes, namedPlugin } from '../../domain/naming';
import type { HeldToolDrift, PluginRecord } from '../../domain/plugin-record';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import type { ToolDrift } from '../../domain/tool-drift';
import type { CatalogService } from '../catalog/catalog-service';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { ServerToolListing } from '../ports/plugin-runtime';
import type { Settings } from '../settings';
import { errorMessage } from '../shared/error-code';
import type { KeyedMutex } from '../shared/keyed-mutex';
import type { PluginProcesses } from './plugin-processes';

/**
 * Follows every complete tool list of an MCP server plugin after the one its install or upgrade
 * pinned (docs/lifecycle.md, Pinned tools and drift): each later start, each restart, each
 * re-list the server's `list_changed` causes. A version that has no pinned set yet (installed
 * waiting for its configuration) pins this list, the collision check included (a clash: `error`
 * and its process stopped). A pinned one keeps serving its pinned tools while the list differs,
 * and its record holds the `tool_drift` (null again once they match); with
 * `runtime.auto_accept_tools` the list is pinned at once, as one catalog revision, except what
 * relistPinned() holds. The record's `server` and import warnings follow each list. Lists of a
 * version the record no longer (or does not yet) name are ignored. One plugin's lists are taken
 * in order, under its lock, so they never interleave with a lifecycle change or an accept.
 */
export class ServerToolPins {
  private unsubscribe: (() => void) | undefined;
  private applying: Promise<void> = Promise.resolve();

  constructor(
    private readonly processes: PluginProcesses,
    private readonly catalog: CatalogService,
    private readonly locks: KeyedMutex,
    private readonly clock: Clock,
    private readonly schemas: SchemaCompiler,
    private readonly settings: Settings,
    private readonly logger: Logger,
  ) {}

  /** Starts following tool lists; idempotent. */
  execute(): void {
    this.unsubscribe ??= this.processes.onServerTools((from, listing) => this.follow(from.pluginId, from.version, listing));
  }

  /** Stops following (shutdown); resolves once the last list taken is stored. */
  async dispose(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.applying;
  }

  /** Resolves once every list received so far is stored (for tests). */
  settled(): Promise<void> {
    return this.applying;
  }

  private follow(pluginId: string, version: string, listing: ServerToolListing): void {
    const done = this.locks.run(pluginId, () => this.apply(pluginId, version, listing));
    this.applying = Promise.all([
      this.applying,
      done.catch((error: unknown) => this.logger.error({ plugin_id: pluginId, err: errorMessage(error) }, 'could not store an MCP server tool list')),
    ]).then(() => undefined);
  }

  private async apply(pluginId: string, version: string, listing: ServerToolListing): Promise<void> {
    const { catalog, clock, schemas, settings } = this;
    let stop = false;
    const outcome = await catalog.commit(async (tx) => {
      const record = await tx.getPlugin(pluginId);
      if (!record || record.version !== version || record.manifest.runtime?.type !== 'mcp-stdio') return undefined;
      const others = (await tx.listPlugins()).filter((other) => other.id !== pluginId).map(namedPlugin);
      const now = clock.isoNow();
      let next: PluginRecord;
      if (!hasPinnedTools(record.manifest)) {
        // The first successful list of a version that waited for its configuration is its pinned
        // set, once the change that started it has put it in service (one that did not commit left it waiting).
        if (record.status !== 'active') return undefined;
        const manifest = pinServerTools(record.manifest, listing, schemas);
        const [clash] = findNameClashes(namedPlugin({ id: pluginId, manifest }), others, settings.toolPrefix);
        if (clash !== undefined) {
          stop = true;
          const reason = `NAME_COLLISION: ${describeClash(clash)}`;
          next = { ...withDrift(record, null, now), status: 'error', last_error: reason, last_error_at: now, server: listing.server, updated_at: now };
        } else {
          next = { ...withDrift(record, null, now), manifest, server: listing.server, updated_at: now };
        }
      } else {
        const relisted = relistPinned(pluginId, record.manifest, listing, others, settings.toolPrefix, schemas);
        next = { ...withDrift(record, relisted.drift, now), manifest: relisted.manifest, server: listing.server };
      }
      if (sameRecord(record, next)) return undefined;
      const changed = { ...next, updated_at: now };
      await tx.savePlugin(changed);
      return { before: record, after: changed };
    });
    if (stop) await this.processes.takeDown(pluginId);
    if (!outcome) return;
    const { before, after } = outcome;
    const fields = { plugin_id: pluginId, version };
    if (after.tool_drift && !sameJson(before.tool_drift ?? null, after.tool_drift)) {
      this.logger.warn(
        { ...fields, ...counts(after.tool_drift) },
        "the MCP server's tools differ from the pinned ones; agents keep the pinned tools until accepted",
      );
    } else if (before.tool_drift && !after.tool_drift) {
      this.logger.info(fields, "the MCP server's tools match the pinned ones again");
    }
    if (!sameJson(before.manifest.agent_tools, after.manifest.agent_tools))
      this.logger.info({ ...fields, tools: after.manifest.agent_tools.length }, 'MCP server tools pinned');
    if (after.status === 'error' && before.status !== 'error') this.logger.warn({ ...fields, reason: after.last_error }, 'plugin went to error');
  }
}

/** `record` holding `drift` (left out when null); a drift held already keeps its `detected_at`. */
export function withDrift(record: PluginRecord, drift: ToolDrift | null, now: string): PluginRecord {
  const { tool_drift: held, ...rest } = record;
  if (drift === null) return rest;
  const kept: HeldToolDrift = { ...drift, detected_at: held?.detected_at ?? now };
  return { ...rest, tool_drift: kept };
}

function sameRecord(a: PluginRecord, b: PluginRecord): boolean {
  const comparable = (record: PluginRecord) => ({ ...record, updated_at: '', tool_drift: record.tool_drift ?? null, server: record.server ?? null });
  return sameJson(comparable(a), comparable(b));
}

function sameJson(a: unknown, b: unknown): boolean {
  // Through JSON first: a field left undefined is one left out.
  const plain = (value: unknown) => canonicalJson(JSON.parse(JSON.stringify(value ?? null)) as JsonValue);
  return plain(a) === plain(b);
}

function counts(drift: ToolDrift): Record<string, number> {
  return { added: drift.added.length, removed: drift.removed.length, changed: drift.changed.length };
}
