import { Option, type Command } from 'commander';

/** `plugin logs <id>` and its options; `--limit` is the API's word for `--lines`, kept as a hidden alias. */
export function pluginLogsCommand(group: Command): Command {
  return group
    .command('logs <id>')
    .description("print a plugin's recent log records, kept by the backend (--follow: then each new one)")
    .option('--lines <n>', 'how many of the most recent records (1-1000)', '100')
    .addOption(new Option('--limit <n>').hideHelp())
    .option('--follow', 'keep printing new records until Ctrl-C');
}
