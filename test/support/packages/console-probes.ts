/**
 * Small plugins the console's browser tests (and its screenshots) install: one that writes a
 * known line to stderr as it starts, one with a configuration holding a secret.
 */

/** A plugin with one `ping` tool that writes `line` to stderr before it serves. */
export function stderrProbe(id: string, line: string) {
  return {
    manifest: {
      api_version: 1,
      id,
      version: '1.0.0',
      display_name: 'Log probe',
      description: 'Writes one line to stderr as it starts, then answers pong.',
      agent_tools: [{ name: 'ping', description: 'Answers pong.', surfaces: ['kanban-task'], input_schema: { type: 'object' } }],
    },
    source: `
import { serve } from '@toolport/plugin-sdk';
process.stderr.write(${JSON.stringify(line)} + '\\n');
void serve({ tools: { ping: () => 'pong' } });
`,
  };
}

/**
 * A plugin configured with a `region` and a secret `api_key` (writeOnly, so the API shows it
 * masked). Its `whoami` tool says the region it runs with and whether its key is `expectedKey`,
 * so a test can tell that saving the form kept the secret without the secret leaving the plugin.
 */
export function configProbe(id: string, expectedKey: string) {
  return {
    manifest: {
      api_version: 1,
      id,
      version: '1.0.0',
      display_name: 'Config probe',
      description: 'Says which region it is configured for and whether its API key is the expected one.',
      config_schema: {
        type: 'object',
        properties: {
          region: { type: 'string', minLength: 1, description: 'Where the service runs.' },
          api_key: { type: 'string', writeOnly: true, minLength: 1, description: 'Sent to the service; never shown back.' },
        },
        additionalProperties: false,
      },
      agent_tools: [{ name: 'whoami', description: 'Says the configured region.', surfaces: ['kanban-task'], input_schema: { type: 'object' } }],
    },
    source: `
import { serve } from '@toolport/plugin-sdk';
// Read per call, not at start: a first install starts the process before its record is stored,
// and GetConfig answers UNAVAILABLE until it is.
void serve({
  tools: {
    whoami: async (args, context) => {
      const config = await context.host.config();
      const key = config.api_key === ${JSON.stringify(expectedKey)} ? 'expected' : 'other';
      return 'region=' + String(config.region ?? 'none') + ' key=' + key;
    },
  },
});
`,
  };
}
