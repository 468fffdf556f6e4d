import type { ListedTool } from './built-in-tools';
import type { ToolRegistry } from './tool-registry';

/**
 * The agent's tool list, whole. Before any snapshot is held it waits (bounded) for the first
 * pull, then lists the built-ins alone.
 */
export class ListTools {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly firstSnapshotWaitMs: number,
  ) {}

  async execute(): Promise<readonly ListedTool[]> {
    if (!this.registry.isHolding()) await this.registry.whenHolding(this.firstSnapshotWaitMs);
    return this.registry.current().listing;
  }
}
