/** Told each progress step: `progress` counts up from 1; `message` says how long the call has waited. */
export type ProgressReport = (progress: number, message: string) => void;

/**
 * The progress of one call while the backend holds it for an approval (docs/approvals.md):
 * once held, a step every `everyMs` until it is released or the call ends (stop()). A
 * reporter that throws never reaches the call.
 */
export class WaitProgress {
  private timer: ReturnType<typeof setInterval> | undefined;
  private steps = 0;
  private since = 0;

  constructor(
    private readonly report: ProgressReport,
    private readonly everyMs: number,
  ) {}

  /** What the link says of the call: held (steps start) or released (they stop). */
  held(held: boolean): void {
    if (!held) return this.stop();
    if (this.timer) return;
    this.since = performance.now();
    this.timer = setInterval(() => this.step(), this.everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private step(): void {
    this.steps += 1;
    const waited = Math.round((performance.now() - this.since) / 1000);
    try {
      this.report(this.steps, `waiting for approval: ${waited} s so far`);
    } catch {
      // a client gone mid-call: the call itself ends on its own
    }
  }
}
