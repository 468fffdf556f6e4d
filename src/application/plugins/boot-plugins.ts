import { clashingAtStartup } from '../../domain/naming';
import type { PluginRecord } from '../../domain/plugin-record';
import { errorCode, errorMessage } from '../shared/error-code';
import { launchSpecFor } from './launch-spec';
import type { PluginLifecycleDeps } from './plugin-lifecycle-deps';

/**
 * Backend startup: a plugin whose names clash with an earlier-installed one goes to `error`
 * with the reason; every other enabled plugin is started (a failure puts only it in `error`);
 * the catalog is computed once at the end. Resolves once each is active or in error.
 */
export class BootPlugins {
  constructor(private readonly deps: PluginLifecycleDeps) {}

  async execute(): Promise<void> {
    const { store, settings, catalog } = this.deps;
    const records = store.listPlugins();
    const clashes = clashingAtStartup(records, settings.toolPrefix);
    await Promise.all(
      records.map((record) => this.deps.locks.run(record.id, () => this.bootOne(record, clashes.get(record.id)))),
    );
    catalog.recompute();
  }

  private async bootOne(record: PluginRecord, clash: string | undefined): Promise<void> {
    const { store, packages, runtime, running, clock, logger } = this.deps;
    const now = clock.isoNow();
    if (clash !== undefined) {
      store.savePlugin({ ...record, status: 'error', last_error: clash, updated_at: now });
      logger.warn({ plugin_id: record.id, reason: clash }, 'plugin name clash at startup');
      return;
    }
    if (!record.enabled) {
      if (record.status !== 'disabled') store.savePlugin({ ...record, status: 'disabled', updated_at: now });
      return;
    }
    try {
      const instance = await runtime.start(await launchSpecFor(packages, record.manifest));
      running.setCurrent(instance);
      store.savePlugin({ ...record, status: 'active', last_error: null, restart_count: 0, updated_at: clock.isoNow() });
    } catch (error) {
      store.savePlugin({ ...record, status: 'error', last_error: errorMessage(error), updated_at: clock.isoNow() });
      logger.warn({ plugin_id: record.id, code: errorCode(error) }, 'plugin failed to start at boot');
    }
  }
}
