/** How log records are written: `pretty` for a person at a terminal, `json` (one record a line) for machines. */
export type LogFormat = 'pretty' | 'json';

export const LOG_FORMAT_FLAG = '--log-format';
export const LOG_FORMAT_ENV = 'TOOLPORT_LOG_FORMAT';

/** Thrown for a value that is neither format; the CLI makes it a usage error naming its source. */
export class LogFormatError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'LogFormatError';
  }
}

/**
 * docs/cli.md `--log-format pretty|json`: the flag, else TOOLPORT_LOG_FORMAT, else pretty when
 * the records go to a terminal and JSON otherwise (a pipe, a file, the backend reading them).
 */
export function resolveLogFormat(flag: unknown, env: NodeJS.ProcessEnv, toTerminal: boolean): LogFormat {
  const [raw, from] = typeof flag === 'string' ? [flag, LOG_FORMAT_FLAG] : [env[LOG_FORMAT_ENV] ?? '', LOG_FORMAT_ENV];
  if (raw === '') return toTerminal ? 'pretty' : 'json';
  if (raw === 'pretty' || raw === 'json') return raw;
  throw new LogFormatError(`${from}: ${JSON.stringify(raw)} is not one of pretty, json`);
}
