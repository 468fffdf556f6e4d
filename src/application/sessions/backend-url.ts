/**
 * The URL agentctls dial to reach this backend, known only once its listener is bound
 * (port 0 is allowed), so the composition sets it after listen().
 */
export class BackendUrl {
  private value: string | undefined;

  set(url: string): void {
    this.value = url;
  }

  get(): string {
    if (this.value === undefined) throw new Error('the backend URL is not known before the listener is up');
    return this.value;
  }
}
