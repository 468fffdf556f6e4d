/** Time, so tests can control it. */
export abstract class Clock {
  /** Milliseconds since the epoch. */
  abstract now(): number;

  /** ISO 8601 UTC string of now(). */
  isoNow(): string {
    return new Date(this.now()).toISOString();
  }
}
