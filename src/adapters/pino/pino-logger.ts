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

/** Where a PinoLogger writes: the format on stderr and, for the backend, a copy of each JSON line. */
export interface StderrLogOptions {
  /** `pretty` for a person at a terminal; JSON lines otherwise. */
  format?: 'pretty' | 'json';
  tee?: (line: string) => void;
  /** Where JSON lines go instead of fd 2 (a test reading them raw). */
  stream?: { write(line: string): unknown };
}

/**
 * pino, writing to stderr (stdout belongs to `--json`, MCP stdio and the plugin handshake): JSON
 * lines, or pino-pretty's lines for a person. `tee` gets every JSON line as written, once
 * redacted, whatever the format (the backend keeps each plugin's records with it); its faults
 * never reach the code that logged. No record carries a key twice: a field the logger is
 * already bound to (`pid`, `role`, a child's `plugin_id`) is dropped when it says the same, and
 * moved under `clashing_fields` when it does not.
 */
export class PinoLogger extends Logger {
  private constructor(
    private readonly target: pino.Logger,
    private readonly bound: Readonly<LogFields>,
  ) {
    super();
  }

  static toStderr(level: string, bindings: LogFields = {}, options: StderrLogOptions = {}): PinoLogger {
    const out = options.stream ?? (options.format === 'pretty' ? prettyStderr() : pino.destination({ fd: 2, sync: true }));
    const { tee } = options;
    const destination = tee ? { write: (line: string) => teeWrite(out, tee, line) } : out;
    const base = { pid: process.pid, ...bindings };
    const target = pino(
      {
        level,
        base,
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
    return new PinoLogger(target, base);
  }

  debug(fields: LogFields, message: string): void {
    this.target.debug(this.unique(fields), message);
  }
  info(fields: LogFields, message: string): void {
    this.target.info(this.unique(fields), message);
  }
  warn(fields: LogFields, message: string): void {
    this.target.warn(this.unique(fields), message);
  }
  error(fields: LogFields, message: string): void {
    this.target.error(this.unique(fields), message);
  }
  child(bindings: LogFields): Logger {
    const fresh = redactSecrets(this.unique(bindings)) as LogFields;
    return new PinoLogger(this.target.child(fresh), { ...this.bound, ...fresh });
  }

  /** pino writes a bound key and a field of the same name side by side; keep one of each. */
  private unique(fields: LogFields): LogFields {
    let clashing: LogFields | undefined;
    let kept: LogFields | undefined;
    for (const key of Object.keys(fields)) {
      if (!Object.prototype.hasOwnProperty.call(this.bound, key)) continue;
      kept ??= { ...fields };
      delete kept[key];
      if (!sameValue(this.bound[key], fields[key])) (clashing ??= {})[key] = fields[key];
    }
    if (!kept) return fields;
    return clashing ? { ...kept, clashing_fields: clashing } : kept;
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * pino-pretty in this process, synchronously on fd 2: lines keep their order with anything else
 * written to stderr, and nothing is lost at exit. Loaded only when asked for.
 */
function prettyStderr(): { write(line: string): unknown } {
  // A synchronous require: this runs while the logger is built, and only when pretty output is asked for.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PinoPretty } = require('pino-pretty') as typeof import('pino-pretty');
  return PinoPretty({
    destination: 2,
    sync: true,
    colorize: process.stderr.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    singleLine: true,
    ignore: 'pid,hostname,instance_id',
  });
}

function teeWrite(out: { write(line: string): unknown }, tee: (line: string) => void, line: string): void {
  out.write(line);
  try {
    tee(line);
  } catch {
    // keeping a copy must never fail the record itself
  }
}
