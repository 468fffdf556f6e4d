/**
 * The tools of this agentctl's view that some approval rule may hold, as the backend last said
 * (docs/approvals.md, "Marked tools"). A hint for the shape of a 2025-era HTTP answer only: the
 * backend decides every call itself.
 */
export class ApprovalMarks {
  private marked: ReadonlySet<string> = new Set();

  /** Replaces the whole set. */
  set(tools: readonly string[]): void {
    this.marked = new Set(tools);
  }

  has(exposedName: string): boolean {
    return this.marked.has(exposedName);
  }
}
