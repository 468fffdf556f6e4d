/** docs/cli.md exit codes. */
export const EXIT = {
  ok: 0,
  refused: 1,
  usage: 2,
  unreachable: 3,
} as const;

/** Bad usage: a wrong flag, value or argument. The CLI prints the message and exits 2. */
export class UsageError extends Error {
  readonly exitCode = EXIT.usage;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
