import type { InMemoryPluginBehaviour } from '../../src/adapters/memory/in-memory-plugin-runtime';
import type { PluginLaunchSpec } from '../../src/application/ports/plugin-runtime';

/** The contract's well-behaved plugin: echo, slow ({ms}) and crash. */
export function echoBehaviour(): InMemoryPluginBehaviour {
  return {
    tools: {
      echo: (args, call) => ({
        text: 'echo',
        structuredContentJson: JSON.stringify({ arguments: args, context: call.context }),
        isError: false,
      }),
      slow: (args, call) =>
        new Promise((resolve) => {
          const ms = typeof args.ms === 'number' ? args.ms : 1000;
          const timer = setTimeout(() => resolve({ text: `slept ${ms} ms`, structuredContentJson: '', isError: false }), ms);
          call.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
        }),
      crash: (_args, call) => {
        call.crash('plugin process exited with code 1');
        return new Promise(() => undefined);
      },
    },
  };
}

/** A plugin whose process exits before its handshake. */
export function failingBehaviour(): InMemoryPluginBehaviour {
  return {
    tools: {},
    failsToStart: { message: 'plugin exited with code 1 before its handshake', exitCode: 1, stderr: ['boom: cannot start'] },
  };
}

/** A launch spec whose executable is the in-memory runtime's registration key. */
export function launchSpecFixture(pluginId: string, version = '1.0.0', executable = `/fake/${pluginId}/${version}/plugin`): PluginLaunchSpec {
  return {
    pluginId,
    version,
    installDir: `/fake/${pluginId}/${version}`,
    executable,
    args: [],
    dataDir: `/fake/data/${pluginId}`,
  };
}
