import { join, resolve } from 'node:path';
import type { Container } from 'inversify';
import { LOG_FORMAT_ENV } from '../adapters/cli/log-format';
import { settingsToEnv } from '../adapters/cli/settings-loader';
import { CountingCatalogPublisher } from '../adapters/metrics/counting-catalog-publisher';
import { PrometheusMetrics } from '../adapters/metrics/prometheus-metrics';
import { ProcessAgentctlLauncher } from '../adapters/process/process-agentctl-launcher';
import { WsAgentctlLinks } from '../adapters/websocket/ws-agentctl-links';
import { AgentctlLauncher } from '../application/ports/agentctl-launcher';
import { CatalogPublisher } from '../application/ports/catalog-publisher';
import { trustFileFor } from './backend-listener';
import type { ServeContext } from './serve-options';

/** The `bin/toolport` entry, so the backend can launch agentctls with the same build. */
const TOOLPORT_BIN = resolve(__dirname, '..', '..', 'bin', 'toolport');
const AGENTCTL_NODE_FLAGS = '--max-semi-space-size=1';

/**
 * The agentctls: the links they dial in on (which carry the catalog pushes, each failed one
 * counted by the metrics) and the launcher that starts one per session. The core stops
 * following and stopping them (`StopBackend`); nothing is left here to close.
 */
export function agentctlAdapters({ dataDir, logger, options }: ServeContext): (c: Container) => void {
  return (c) => {
    c.bind(WsAgentctlLinks).toResolvedValue(() => new WsAgentctlLinks());
    c.bind(CatalogPublisher).toResolvedValue(
      (links: WsAgentctlLinks, metrics: PrometheusMetrics) => new CountingCatalogPublisher(links, () => metrics.recordFanOutFailure()),
      [WsAgentctlLinks, PrometheusMetrics],
    );
    c.bind(AgentctlLauncher).toResolvedValue(
      () =>
        new ProcessAgentctlLauncher(
          {
            // A 1 MB young generation keeps an idle agentctl near 76 MB RSS instead of 87 MB
            // (bench/PROFILE.md); it serves one agent, so the extra scavenges cost little.
            command: { executable: process.execPath, args: [AGENTCTL_NODE_FLAGS, TOOLPORT_BIN, 'agentctl'] },
            runDir: join(dataDir, 'run'),
            // Launched agentctls share the backend's stderr, so they write in its format too.
            settingsEnv: {
              ...settingsToEnv(options.settings),
              [LOG_FORMAT_ENV]: options.logFormat ?? 'json',
              ...(options.tls ? { TOOLPORT_CA: trustFileFor(options.tls)! } : {}),
            },
            readyTimeoutMs: 20000,
            dataDir,
          },
          logger.child({ component: 'agentctl-launcher' }),
        ),
    );
  };
}
