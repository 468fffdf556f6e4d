import { ToolportError } from '../../domain/errors';
import { pinServerTools } from '../../domain/pinned-server-tools';
import type { PluginRecord } from '../../domain/plugin-record';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import type { CatalogService } from '../catalog/catalog-service';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { PluginRecords } from '../ports/plugin-records';
import type { ServerToolListing } from '../ports/plugin-runtime';
import type { Settings } from '../settings';
import { errorMessage } from '../shared/error-code';
import type { KeyedMutex } from '../shared/keyed-mutex';
import { assertNamesFree } from './assert-names-free';
import { findPlugin } from './find-plugin';
import type { PluginProcesses } from './plugin-processes';
import { withDrift } from './server-tool-pins';

/**
 * The operator accepts an MCP server plugin's tool drift (docs/lifecycle.md, Pinned tools and
 * drift): the running server is listed again and that list is pinned as the plugin's tools, its
 * `tool_drift` cleared, in one commit, so the catalog moves by one revision and each affected
 * session hears one `list_changed`. With no drift held it is a no-op answering the record. A
 * pinned name another plugin (or a built-in) has refuses it with NAME_COLLISION, the drift kept;
 * a plugin that is not an MCP server is BAD_REQUEST, one with no server running PLUGIN_NOT_ACTIVE.
 */
export class AcceptPluginTools {
  constructor(
    private readonly records: PluginRecords,
    private readonly processes: PluginProcesses,
    private readonly catalog: CatalogService,
    private readonly locks: KeyedMutex,
    private readonly clock: Clock,
    private readonly schemas: SchemaCompiler,
    private readonly settings: Settings,
    private readonly logger: Logger,
  ) {}

  async execute(pluginId: string): Promise<PluginRecord> {
    return this.locks.run(pluginId, async () => {
      const { records: store, processes, catalog, clock, schemas, settings, logger } = this;
      const record = await findPlugin(store, pluginId);
      if (record.manifest.runtime?.type !== 'mcp-stdio') {
        throw new ToolportError('BAD_REQUEST', `plugin "${pluginId}" is not an MCP server: it has no pinned tools to accept`);
      }
      if (!record.tool_drift) return record;
      const instance = processes.serving(pluginId);
      if (!instance) throw new ToolportError('PLUGIN_NOT_ACTIVE', `plugin "${pluginId}" has no MCP server running to list; enable it first`);
      let listing: ServerToolListing;
      try {
        listing = await processes.relistTools(instance);
      } catch (error) {
        throw new ToolportError('PLUGIN_ERROR', `plugin "${pluginId}": its MCP server could not be listed again: ${errorMessage(error)}`);
      }
      const manifest = pinServerTools(record.manifest, listing, schemas);
      assertNamesFree({ id: pluginId, manifest }, await store.listPlugins(), settings.toolPrefix);
      const accepted = await catalog.commit(async (tx) => {
        const stored = await findPlugin(tx, pluginId);
        if (stored.version !== record.version)
          throw new ToolportError('BAD_REQUEST', `plugin "${pluginId}" changed version meanwhile; look at its drift again`);
        assertNamesFree({ id: pluginId, manifest }, await tx.listPlugins(), settings.toolPrefix);
        const now = clock.isoNow();
        const next: PluginRecord = { ...withDrift(stored, null, now), manifest, server: listing.server, updated_at: now };
        await tx.savePlugin(next);
        return next;
      });
      logger.info({ plugin_id: pluginId, version: accepted.version, tools: manifest.agent_tools.length }, 'MCP server tools accepted and pinned');
      return accepted;
    });
  }
}
