import { Logger, type LogFields } from '../../src/application/ports/logger';

export interface CapturedRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: LogFields;
  message: string;
}

/** A Logger test double that keeps every record (children share the parent's list). */
export class CapturingLogger extends Logger {
  constructor(
    readonly records: CapturedRecord[] = [],
    private readonly bindings: LogFields = {},
  ) {
    super();
  }

  debug(fields: LogFields, message: string): void {
    this.capture('debug', fields, message);
  }

  info(fields: LogFields, message: string): void {
    this.capture('info', fields, message);
  }

  warn(fields: LogFields, message: string): void {
    this.capture('warn', fields, message);
  }

  error(fields: LogFields, message: string): void {
    this.capture('error', fields, message);
  }

  child(bindings: LogFields): Logger {
    return new CapturingLogger(this.records, { ...this.bindings, ...bindings });
  }

  /** Records whose message is `message`. */
  withMessage(message: string): CapturedRecord[] {
    return this.records.filter((r) => r.message === message);
  }

  /** Everything captured as one text, to assert that something never appears. */
  text(): string {
    return this.records.map((r) => JSON.stringify(r)).join('\n');
  }

  private capture(level: CapturedRecord['level'], fields: LogFields, message: string): void {
    this.records.push({ level, fields: { ...this.bindings, ...fields }, message });
  }
}
