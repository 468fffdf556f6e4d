import { escapeControlCharacters } from '../../domain/control-characters';
import type { CliIo } from './program';

/**
 * The CLI's output for commands that print text a package or a plugin wrote (`plugin
 * validate`, `plugin info`, `plugin logs`; docs/cli.md): every control character a terminal
 * could act on is written as a `\u00XX` escape, in human and `--json` output alike (JSON
 * strings already escape C0 controls; this adds DEL and C1 ones, still valid JSON).
 */
export function terminalSafe(io: CliIo): CliIo {
  return {
    ...io,
    stdout: (text) => io.stdout(escapeControlCharacters(text)),
    stderr: (text) => io.stderr(escapeControlCharacters(text)),
  };
}
