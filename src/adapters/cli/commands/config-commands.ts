import type { PluginConfig, PluginRecord } from '../../../api';
import { readConfigValue } from '../../../domain/config-value';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../domain/json';
import type { ApiAnswer, ApiClient } from '../api-client';
import { UsageError } from '../exit-codes';
import type { CliIo, CommandHandlers, CommandInput } from '../program';
import { runApiWork } from './api-command';

interface Assignment {
  key: string;
  /** The text after `=`, or null for `KEY=-` (read from stdin). */
  raw: string | null;
}

/** `KEY=VALUE` arguments; a malformed one, or two reading stdin, is a usage error (exit 2). */
export function readAssignments(args: string[]): Assignment[] {
  if (args.length === 0) throw new UsageError('config set needs at least one KEY=VALUE (KEY=- reads the value from stdin)');
  const seen = new Set<string>();
  const assignments = args.map((arg) => {
    const at = arg.indexOf('=');
    if (at <= 0) throw new UsageError(`expected KEY=VALUE, got an argument without "=" or without a key`);
    const key = arg.slice(0, at);
    if (seen.has(key)) throw new UsageError(`${key} is given twice`);
    seen.add(key);
    const raw = arg.slice(at + 1);
    return { key, raw: raw === '-' ? null : raw };
  });
  if (assignments.filter((a) => a.raw === null).length > 1) throw new UsageError('only one KEY=- can read stdin');
  return assignments;
}

/** Stdin to its end, one trailing newline dropped (what `echo` or a here-string adds). */
export function stdinValue(text: string): string {
  return text.replace(/\r?\n$/, '');
}

function describeConfig({ values }: PluginConfig): string {
  const keys = Object.keys(values).sort();
  if (keys.length === 0) return 'No configuration set.\n';
  return keys.map((key) => `${key}=${typeof values[key] === 'string' ? values[key] : JSON.stringify(values[key])}\n`).join('');
}

/** `KEY…` arguments of `config unset`: at least one, each once (a usage error otherwise, exit 2). */
export function readKeys(args: string[]): string[] {
  if (args.length === 0) throw new UsageError('config unset needs at least one KEY');
  const seen = new Set<string>();
  for (const key of args) {
    if (key === '' || key.includes('=')) throw new UsageError('config unset takes KEY names only, not KEY=VALUE');
    if (seen.has(key)) throw new UsageError(`${key} is given twice`);
    seen.add(key);
  }
  return args;
}

/**
 * `toolport plugin config get|set|unset` (docs/cli.md). `set` changes only the keys it names: it
 * reads the current configuration (secrets come back masked, and a mask sent back keeps the
 * stored secret), reads each value as its config_schema property's type, and sends the whole
 * configuration. A value that does not read as its type goes as text, so the backend refuses
 * it with CONFIG_INVALID as it refuses any wrong value. `unset` sends the configuration read
 * without the keys it names (a key not set stays unset), so with `--workspace` those keys fall
 * back to the instance values.
 */
export function configCommands(io: CliIo): Pick<CommandHandlers, 'plugin.config.get' | 'plugin.config.set' | 'plugin.config.unset'> {
  const params = (input: CommandInput) => ({ id: input.args[0]! });
  // `--workspace W` reads and writes W's overrides instead (docs/cli.md, "--workspace W on plugin config get|set|unset").
  const query = (input: CommandInput) => (typeof input.options.workspace === 'string' ? { workspace: input.options.workspace } : undefined);
  return {
    'plugin.config.get': (input) =>
      runApiWork(io, input, (client) => client.call('GET /api/v1/plugins/:id/config', { params: params(input), query: query(input) }), describeConfig),
    'plugin.config.set': async (input) => {
      const assignments = readAssignments(input.args.slice(1));
      let piped: string | undefined;
      if (assignments.some((a) => a.raw === null)) {
        if (!io.readStdin) throw new UsageError('KEY=- needs a standard input to read');
        piped = stdinValue(await io.readStdin());
      }
      return runApiWork(
        io,
        input,
        (client) => setKeys(client, params(input), query(input), assignments, piped ?? ''),
        (plugin) => `${plugin.id} is ${plugin.status}\n`,
      );
    },
    'plugin.config.unset': (input) => {
      const keys = readKeys(input.args.slice(1));
      return runApiWork(
        io,
        input,
        (client) => unsetKeys(client, params(input), query(input), keys),
        (plugin) => `${plugin.id} is ${plugin.status}\n`,
      );
    },
  };
}

async function unsetKeys(
  client: ApiClient,
  params: { id: string },
  query: { workspace: string } | undefined,
  keys: string[],
): Promise<ApiAnswer<PluginRecord>> {
  const current = await client.call('GET /api/v1/plugins/:id/config', { params, query });
  if (!current.ok) return current;
  const drop = new Set(keys);
  const values = Object.fromEntries(Object.entries(current.body.values).filter(([key]) => !drop.has(key)));
  return client.call('PUT /api/v1/plugins/:id/config', { params, query, body: { values } });
}

async function setKeys(
  client: ApiClient,
  params: { id: string },
  query: { workspace: string } | undefined,
  assignments: Assignment[],
  piped: string,
): Promise<ApiAnswer<PluginRecord>> {
  const schema = await client.call('GET /api/v1/plugins/:id/config/schema', { params });
  if (!schema.ok) return schema;
  const current = await client.call('GET /api/v1/plugins/:id/config', { params, query });
  if (!current.ok) return current;
  const properties = propertiesOf(schema.body.schema);
  const values: JsonObject = { ...current.body.values };
  for (const { key, raw } of assignments) {
    const value: JsonValue = raw === null ? readConfigValue(properties[key], piped) : readConfigValue(properties[key], raw);
    Object.defineProperty(values, key, { value, enumerable: true, configurable: true, writable: true });
  }
  return client.call('PUT /api/v1/plugins/:id/config', { params, query, body: { values } });
}

function propertiesOf(schema: unknown): Record<string, unknown> {
  return isJsonObject(schema) && isJsonObject(schema.properties) ? schema.properties : {};
}
