import { Logger } from '../../src/application/ports/logger';

/** A Logger that drops every record: for measurements, where logging would be part of the figure. */
export class SilentLogger extends Logger {
  debug(): void {}
  info(): void {}
  warn(): void {}
  error(): void {}
  child(): Logger {
    return this;
  }
}
