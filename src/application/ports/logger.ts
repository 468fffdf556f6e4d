/** Structured fields of a log record. Never put arguments, results, tokens or secrets here. */
export type LogFields = Record<string, unknown>;

/** A structured logger (pino in production, a capturing one in tests). */
export abstract class Logger {
  abstract debug(fields: LogFields, message: string): void;
  abstract info(fields: LogFields, message: string): void;
  abstract warn(fields: LogFields, message: string): void;
  abstract error(fields: LogFields, message: string): void;
  /** A logger that adds `bindings` to every record. */
  abstract child(bindings: LogFields): Logger;
}
