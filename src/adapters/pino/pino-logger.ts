import pino from 'pino';
import { Logger, type LogFields } from '../../application/ports/logger';

/** Keys whose values are never written, whatever their nesting. */
const SECRET_KEY = /(token|secret|password|authorization|cookie|api[_-]?key)/i;
const BEARER_VALUE = /\bBearer\s+[A-Za-z0-9._~+/=-]+/g;

/** Replaces token-like fields and bearer credentials so a log line can never leak them. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[deep]';
  if (typeof value === 'string') return value.replace(BEARER_VALUE, 'Bearer [redacted]');
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  if (value && typeof value === 'object' && !(value instanceof Error)) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = SECRET_KEY.test(key) ? '[redacted]' : redactSecrets(inner, depth + 1);
    }
    return out;
  }
  return value;
}

/**
 * pino, writing JSON lines to stderr: stdout belongs to `--json`, MCP stdio and the plugin
 * handshake. `tee` also gets every line written, once redacted (the backend keeps each
 * plugin's records with it); its faults never reach the code that logged.
 */
export class PinoLogger extends Logger {
  constructor(private readonly target: pino.Logger) {
    super();
  }

  static toStderr(level: string, bindings: LogFields = {}, tee?: (line: string) => void): PinoLogger {
    const stderr = pino.destination({ fd: 2, sync: true });
    const destination = tee ? { write: (line: string) => teeWrite(stderr, tee, line) } : stderr;
    const base = pino(
      {
        level,
        base: { pid: process.pid, ...bindings },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { log: (fields) => redactSecrets(fields) as Record<string, unknown> },
        hooks: {
          logMethod(args, method) {
            const redacted = args.map((arg) => (typeof arg === 'string' ? (redactSecrets(arg) as string) : arg));
            method.apply(this, redacted as Parameters<typeof method>);
          },
        },
      },
      destination,
    );
    return new PinoLogger(base);
  }

  debug(fields: LogFields, message: string): void {
    this.target.debug(fields, message);
  }
  info(fields: LogFields, message: string): void {
    this.target.info(fields, message);
  }
  warn(fields: LogFields, message: string): void {
    this.target.warn(fields, message);
  }
  error(fields: LogFields, message: string): void {
    this.target.error(fields, message);
  }
  child(bindings: LogFields): Logger {
    return new PinoLogger(this.target.child(redactSecrets(bindings) as LogFields));
  }
}

function teeWrite(stderr: { write(line: string): unknown }, tee: (line: string) => void, line: string): void {
  stderr.write(line);
  try {
    tee(line);
  } catch {
    // keeping a copy must never fail the record itself
  }
}
