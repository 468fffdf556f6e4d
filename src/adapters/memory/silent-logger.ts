import { Logger, type LogFields } from '../../application/ports/logger';

/** A Logger that keeps nothing, for in-memory adapters nobody reads the logs of. */
export class SilentLogger extends Logger {
  debug(_fields: LogFields, _message: string): void {}
  info(_fields: LogFields, _message: string): void {}
  warn(_fields: LogFields, _message: string): void {}
  error(_fields: LogFields, _message: string): void {}
  child(_bindings: LogFields): Logger {
    return this;
  }
}
