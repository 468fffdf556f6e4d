import type { Violation } from '../../domain/errors';
import type { JsonObject } from '../../domain/json';
import type { PluginManifest } from '../../domain/manifest';
import { pinServerTools } from '../../domain/pinned-server-tools';
import type { McpServerInfo } from '../../domain/plugin-record';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import type { PluginInstance, PluginRuntime, ServerToolListing } from '../ports/plugin-runtime';
import type { SealedValue } from '../ports/secret-box';
import type { LaunchSpecs } from './launch-spec';
import type { RunningPlugins } from './running-plugins';
import type { StoredConfiguration, StoredConfigurations } from './stored-configuration';

/** Told each complete tool list of an MCP server process of `from`'s plugin version. */
export type ServerToolsListener = (from: { pluginId: string; version: string }, listing: ServerToolListing) => void;

/**
 * The processes that serve plugins, in the steps every lifecycle change takes with them: start
 * one from an installed version and a configuration, put it in service in place of the one
 * serving, take it back when the change does not commit, and stop one. Each start goes through
 * the version's launch spec, so it gets a Host grant of its own and checks the installed files
 * first (docs/lifecycle.md §13); a new call only ever reaches the instance in service.
 */
export class PluginProcesses {
  private readonly listingListeners = new Set<ServerToolsListener>();

  constructor(
    private readonly runtime: PluginRuntime,
    private readonly running: RunningPlugins,
    private readonly launch: LaunchSpecs,
    private readonly configurations: StoredConfigurations,
    /** For importing an MCP server's tools. */
    private readonly schemas: SchemaCompiler,
  ) {}

  /** The committed configuration of `pluginId`, checked against `manifest`'s config_schema. */
  configuration(pluginId: string, manifest: PluginManifest): Promise<StoredConfiguration> {
    return this.configurations.of(pluginId, manifest);
  }

  /** Every way a workspace's overrides merged with `instance` break `manifest`'s config_schema, paths prefixed `workspaces.<W>.`. */
  workspaceMerges(pluginId: string, manifest: PluginManifest, instance: JsonObject): Promise<Violation[]> {
    return this.configurations.workspaceMerges(pluginId, manifest, instance);
  }

  /**
   * Starts a process of the installed version `manifest` names; not in service yet. An MCP
   * server's tool lists (the first before this resolves) go to `onServerTools`.
   */
  async start(manifest: PluginManifest, config: SealedValue | null, onServerTools?: (listing: ServerToolListing) => void): Promise<PluginInstance> {
    const spec = await this.launch.for(manifest, config);
    if (manifest.runtime?.type !== 'mcp-stdio') return this.runtime.start(spec);
    const from = { pluginId: manifest.id, version: manifest.version };
    return this.runtime.start({
      ...spec,
      onServerTools: (listing) => {
        onServerTools?.(listing);
        for (const listener of [...this.listingListeners]) listener(from, listing);
      },
    });
  }

  /**
   * Registers a listener for every complete tool list of every MCP server process started here
   * (each start, restarts included, and each re-list); returns the function that removes it.
   */
  onServerTools(listener: ServerToolsListener): () => void {
    this.listingListeners.add(listener);
    return () => this.listingListeners.delete(listener);
  }

  /** Lists the tools of the MCP server `instance` runs again (listeners hear of it too). */
  relistTools(instance: PluginInstance): Promise<ServerToolListing> {
    return this.runtime.relistTools(instance);
  }

  /**
   * Starts as start() does; for an MCP server also answers the first list pinned onto
   * `manifest` (its imported agent_tools and warnings) and the server's `initialize` info.
   */
  async startPinning(
    manifest: PluginManifest,
    config: SealedValue | null,
  ): Promise<{ instance: PluginInstance; manifest: PluginManifest; server: McpServerInfo | null }> {
    let first: ServerToolListing | undefined;
    const instance = await this.start(manifest, config, (listing) => (first ??= listing));
    if (!first) return { instance, manifest, server: null };
    return { instance, manifest: pinServerTools(manifest, first, this.schemas), server: first.server };
  }

  /**
   * `manifest` with what its installed version's interpreters warn of added to its `warnings`
   * (docs/lifecycle.md, interpreters): the record an install or upgrade keeps.
   */
  async withReachWarnings(manifest: PluginManifest): Promise<PluginManifest> {
    const found = await this.launch.warnings(manifest);
    return found.length === 0 ? manifest : { ...manifest, warnings: [...(manifest.warnings ?? []), ...found] };
  }

  /** The instance serving `pluginId` now, if any. */
  serving(pluginId: string): PluginInstance | undefined {
    return this.running.instanceOf(pluginId);
  }

  /**
   * New calls go to `fresh` from now on (to none when there is no fresh instance); answers the
   * instance it replaces, which still finishes the calls it has in flight.
   */
  putInService(pluginId: string, fresh: PluginInstance | undefined): PluginInstance | undefined {
    const old = this.running.release(pluginId);
    if (fresh) this.running.setCurrent(fresh);
    return old;
  }

  /** Undoes putInService for a change that did not commit: `old` serves again, `fresh` stops. */
  async takeBack(pluginId: string, fresh: PluginInstance | undefined, old: PluginInstance | undefined): Promise<void> {
    if (fresh && this.running.isCurrent(fresh)) this.running.release(pluginId);
    if (old) this.running.setCurrent(old);
    if (fresh) await this.runtime.stop(fresh);
  }

  /** Stops an instance taken out of service, cancelling its calls still in flight (CANCELLED_BY_LIFECYCLE). */
  async retire(instance: PluginInstance): Promise<void> {
    this.running.cancel(instance.pluginId, instance);
    await this.runtime.stop(instance);
  }

  /** Resolves once `instance` has no call in flight. */
  whenIdle(instance: PluginInstance): Promise<void> {
    return this.running.whenIdle(instance);
  }

  /** Stops the instance serving `pluginId` (one that gave up restarting included), letting its calls end on their own. */
  async stopServing(pluginId: string): Promise<void> {
    const stale = this.running.release(pluginId);
    if (stale) await this.runtime.stop(stale);
  }

  /**
   * Refuses new calls to the plugin at once (no serving instance any more), cancels its calls
   * in flight with CANCELLED_BY_LIFECYCLE, then stops its process.
   */
  async takeDown(pluginId: string): Promise<void> {
    const instance = this.running.release(pluginId);
    this.running.cancel(pluginId);
    if (instance) await this.runtime.stop(instance);
  }
}
