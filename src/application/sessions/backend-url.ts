/**
 * The URL agentctls dial to reach this backend, known only once its listener is bound
 * (port 0 is allowed), so the composition sets it after listen(). On a store replicas share,
 * the other live replicas' URLs follow it, comma-separated (docs/operations.md §10).
 */
export class BackendUrl {
  private value: string | undefined;
  private peers: string[] = [];

  set(url: string): void {
    this.value = url;
  }

  /** The other live replicas' URLs, oldest first. */
  setPeers(urls: readonly string[]): void {
    this.peers = urls.filter((url) => url !== this.value);
  }

  /** This backend's own URL alone. */
  own(): string {
    if (this.value === undefined) throw new Error('the backend URL is not known before the listener is up');
    return this.value;
  }

  /** Its own URL first, then every other live replica's. */
  get(): string {
    return [this.own(), ...this.peers].join(',');
  }
}
