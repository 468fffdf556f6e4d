import { UsageError } from './exit-codes';

/** `serve --plugin-sandbox`: sandbox plugins where the platform allows, always, or never (docs/operations.md). */
export type PluginSandboxChoice = 'auto' | 'require' | 'off';
export const SANDBOX_FLAG = '--plugin-sandbox';
export const SANDBOX_ENV = 'TOOLPORT_PLUGIN_SANDBOX';
export const UIDS_FLAG = '--plugin-uids';
export const UIDS_ENV = 'TOOLPORT_PLUGIN_UIDS';
export const DEFAULT_PLUGIN_UIDS = '2000000-2099999';

/** An inclusive range of user ids a root backend gives plugins, one each. */
export interface PluginUidRange {
  start: number;
  end: number;
}

/** The flag, else TOOLPORT_PLUGIN_SANDBOX, else `auto`; anything else is a usage error naming it. */
export function loadSandboxChoice(flag: unknown, env: NodeJS.ProcessEnv): PluginSandboxChoice {
  const [raw, from] = typeof flag === 'string' ? [flag, SANDBOX_FLAG] : [env[SANDBOX_ENV] ?? '', SANDBOX_ENV];
  if (raw === '') return 'auto';
  if (raw === 'auto' || raw === 'require' || raw === 'off') return raw;
  throw new UsageError(`${from}: expected auto, require or off, got ${JSON.stringify(raw)}`);
}

/** The flag, else TOOLPORT_PLUGIN_UIDS, else 2000000-2099999: `START-END` with 1 ≤ START ≤ END < 2^32 - 1. */
export function loadPluginUids(flag: unknown, env: NodeJS.ProcessEnv): PluginUidRange {
  const [raw, from] = typeof flag === 'string' ? [flag, UIDS_FLAG] : [env[UIDS_ENV] || DEFAULT_PLUGIN_UIDS, UIDS_ENV];
  const match = /^(\d{1,10})-(\d{1,10})$/.exec(raw.trim());
  const start = match ? Number(match[1]) : NaN;
  const end = match ? Number(match[2]) : NaN;
  if (!match || start < 1 || start > end || end > 4_294_967_294) {
    throw new UsageError(`${from}: expected START-END (user ids, 1 <= START <= END < 4294967295), got ${JSON.stringify(raw)}`);
  }
  return { start, end };
}
