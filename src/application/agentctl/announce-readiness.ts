import type { BackendLink } from '../ports/backend-link';
import type { ToolRegistry } from './tool-registry';

/**
 * Ready means an agent's first call goes through: a snapshot is held (from the launch or the
 * first pull) and the link is up. A launched agentctl holds one before it has linked, a
 * standalone one links first. `announce` runs exactly once, the first moment both hold.
 */
export class AnnounceReadiness {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly link: BackendLink,
  ) {}

  execute(announce: () => void): void {
    let announced = false;
    const check = (): void => {
      if (announced || !this.registry.isHolding() || !this.link.isConnected()) return;
      announced = true;
      stopSwaps();
      stopLinks();
      announce();
    };
    const stopSwaps = this.registry.onSwap(check);
    const stopLinks = this.link.onConnected(check);
    check();
  }
}
