import type { Logger } from '../../../application/ports/logger';
import { hostSystemEntries, resolverFiles, type SystemEntry } from './bwrap-arguments';
import { BWRAP, sandboxUnavailable } from './sandbox-probe';
import type { PluginUids } from './plugin-uids';

/** `serve --plugin-sandbox` (docs/operations.md): sandbox where possible, always, or never. */
export type SandboxChoice = 'auto' | 'require' | 'off';

/** How one start runs: in bubblewrap, not sandboxed, or not at all (require without a sandbox). */
export type SandboxDecision = { mode: 'bwrap'; uid?: number } | { mode: 'none'; uid?: number } | { mode: 'refused'; why: string };

/**
 * The backend's sandbox, decided once at start (docs/plugin-protocol.md §4, sandbox): the
 * choice, whether bubblewrap works here (probed once, as a plugin uid under a root backend),
 * and, under root, each plugin's own uid. `auto` without a sandbox logs exactly one warning.
 */
export class PluginSandbox {
  private constructor(
    readonly choice: SandboxChoice,
    private readonly unavailable: string | null,
    private readonly uids: PluginUids | undefined,
    readonly bwrap: string,
    readonly system: readonly SystemEntry[],
    readonly resolver: readonly string[],
  ) {}

  /** Probes (unless `off`) and warns once when `auto` falls back to running plugins unsandboxed. */
  static open(choice: SandboxChoice, logger: Logger, options: { uids?: PluginUids; probeUid?: number; bwrap?: string } = {}): PluginSandbox {
    const bwrap = options.bwrap ?? BWRAP;
    const unavailable = choice === 'off' ? 'the sandbox is off (--plugin-sandbox off)' : sandboxUnavailable(bwrap, options.uids ? options.probeUid : undefined);
    if (choice === 'auto' && unavailable) logger.warn({ sandbox: 'bwrap', reason: unavailable }, 'plugins run without a sandbox: bubblewrap is unavailable');
    return new PluginSandbox(choice, unavailable, choice === 'off' ? undefined : options.uids, bwrap, hostSystemEntries(), resolverFiles());
  }

  /** The mode plugins run in here: `bwrap` when sandboxed, else `none`. */
  get mode(): 'bwrap' | 'none' {
    return this.unavailable === null ? 'bwrap' : 'none';
  }

  /**
   * How `pluginId`'s next start runs, its uid allocated (and kept) under a root backend: in
   * bubblewrap, or (`auto` without a sandbox) unsandboxed but as that uid all the same, never
   * as root. Refused when `require` finds no sandbox or no uid is left for it.
   */
  decide(pluginId: string): SandboxDecision {
    if (this.unavailable !== null && this.choice === 'require') {
      return { mode: 'refused', why: `the sandbox is required (--plugin-sandbox require) but ${this.unavailable}` };
    }
    const mode = this.unavailable === null ? 'bwrap' : 'none';
    if (!this.uids) return { mode };
    try {
      return { mode, uid: this.uids.uidOf(pluginId) };
    } catch (error) {
      return { mode: 'refused', why: (error as Error).message };
    }
  }

  /** Whether plugins run as uids of their own here (a root backend, the sandbox not `off`). */
  get runsPluginUids(): boolean {
    return this.uids !== undefined;
  }

  /** The uid `pluginId` runs as, if one was allocated; null when it runs as the backend's user. */
  uidOf(pluginId: string): number | null {
    return this.uids?.allocated(pluginId) ?? null;
  }
}
