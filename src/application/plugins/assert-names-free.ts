import { assertNoNameClash, namedPlugin } from '../../domain/naming';
import type { PluginRecord } from '../../domain/plugin-record';

/**
 * Throws NAME_COLLISION when a tool of `candidate` would take an exposed name another stored
 * plugin (or a built-in) has; the candidate's own stored record does not count.
 */
export function assertNamesFree(candidate: Pick<PluginRecord, 'id' | 'manifest'>, stored: PluginRecord[], prefix: string): void {
  assertNoNameClash(namedPlugin(candidate), stored.map(namedPlugin), prefix);
}
