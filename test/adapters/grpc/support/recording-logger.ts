import { Logger } from '../../../../src/application/ports/logger';
import type { LogFields } from '../../../../src/application/ports/logger';

export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: LogFields;
  message: string;
}

/** Keeps every record (children share the list), so a test can look at what was logged. */
export class RecordingLogger extends Logger {
  constructor(
    readonly records: LogRecord[] = [],
    private readonly bindings: LogFields = {},
  ) {
    super();
  }

  debug(fields: LogFields, message: string): void {
    this.records.push({ level: 'debug', fields: { ...this.bindings, ...fields }, message });
  }
  info(fields: LogFields, message: string): void {
    this.records.push({ level: 'info', fields: { ...this.bindings, ...fields }, message });
  }
  warn(fields: LogFields, message: string): void {
    this.records.push({ level: 'warn', fields: { ...this.bindings, ...fields }, message });
  }
  error(fields: LogFields, message: string): void {
    this.records.push({ level: 'error', fields: { ...this.bindings, ...fields }, message });
  }
  child(bindings: LogFields): Logger {
    return new RecordingLogger(this.records, { ...this.bindings, ...bindings });
  }
}
