import type { SessionRecord } from '../../domain/session';
import { PluginStore, type HostEntryWrite, type StoreTransaction } from '../ports/plugin-store';
import type { SealedValue } from '../ports/secret-box';
import type { SessionChanges } from './session-changes';

/**
 * The store every use case is given, telling SessionChanges of each session it saves: a
 * session is saved from half a dozen places (start, hello, link down, dead, stop), and this is
 * the one place all of them pass through. Everything else is handed on unchanged.
 */
export class ObservedPluginStore extends PluginStore {
  constructor(
    private readonly inner: PluginStore,
    private readonly changes: SessionChanges,
  ) {
    super();
  }

  async saveSession(session: SessionRecord): Promise<void> {
    await this.inner.saveSession(session);
    this.changes.saved(session);
  }

  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return this.inner.transaction(work);
  }
  listPlugins() {
    return this.inner.listPlugins();
  }
  getPlugin(id: string) {
    return this.inner.getPlugin(id);
  }
  listSessions() {
    return this.inner.listSessions();
  }
  getSession(sessionId: string) {
    return this.inner.getSession(sessionId);
  }
  findSessionByTokenHash(tokenHash: string) {
    return this.inner.findSessionByTokenHash(tokenHash);
  }
  getConfig(pluginId: string) {
    return this.inner.getConfig(pluginId);
  }
  getState(pluginId: string, key: string) {
    return this.inner.getState(pluginId, key);
  }
  putState(pluginId: string, key: string, valueJson: string, maxKeys: number): Promise<HostEntryWrite> {
    return this.inner.putState(pluginId, key, valueJson, maxKeys);
  }
  deleteState(pluginId: string, key: string) {
    return this.inner.deleteState(pluginId, key);
  }
  listStateKeys(pluginId: string, prefix: string, after: string | undefined, limit: number) {
    return this.inner.listStateKeys(pluginId, prefix, after, limit);
  }
  getSecret(pluginId: string, key: string) {
    return this.inner.getSecret(pluginId, key);
  }
  putSecret(pluginId: string, key: string, value: SealedValue, maxKeys: number): Promise<HostEntryWrite> {
    return this.inner.putSecret(pluginId, key, value, maxKeys);
  }
  deleteSecret(pluginId: string, key: string) {
    return this.inner.deleteSecret(pluginId, key);
  }
  incrementBootCounter() {
    return this.inner.incrementBootCounter();
  }
  close() {
    return this.inner.close();
  }
}
