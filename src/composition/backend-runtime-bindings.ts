import { join } from 'node:path';
import type { Container } from 'inversify';
import { readPackageVersion } from '../adapters/cli/package-version';
import { GrpcPluginRuntime } from '../adapters/grpc/grpc-plugin-runtime';
import { GrpcHostServer } from '../adapters/grpc/host/grpc-host-server';
import { PluginSandbox } from '../adapters/grpc/sandbox/plugin-sandbox';
import { openPluginFolders } from '../adapters/grpc/sandbox/plugin-root';
import { PluginUids } from '../adapters/grpc/sandbox/plugin-uids';
import { ShortRunFolder } from '../adapters/grpc/private-tmp-dir';
import { sweepPluginGroups } from '../adapters/grpc/sweep-plugin-groups';
import { FsPackageSource } from '../adapters/package/fs-package-source';
import { FsHostPaths } from '../adapters/system/fs-host-paths';
import { HostRequests } from '../application/host/host-requests';
import { HostSessions } from '../application/host/host-sessions';
import { HostAccess } from '../application/ports/host-access';
import { HostPaths } from '../application/ports/host-paths';
import { PluginRuntime } from '../application/ports/plugin-runtime';
import type { SchemaCompiler } from '../domain/schema-compiler';
import { PACKAGES } from './backend-tokens';
import type { Disposals } from './disposals';
import type { ServeContext, ServeOptions } from './serve-options';

/**
 * Plugin processes: the package folders, the gRPC runtime that starts and supervises them,
 * and the Host API they call back (a 0600 unix socket per start under `<data-dir>/run`).
 * What a killed backend left behind (its plugin processes, staging folders, sockets) is
 * removed first, now that this backend holds the data dir's lock. The Host API closes after
 * the core stopped the plugins, since they may call it until they exit.
 */
export async function pluginProcessAdapters(context: ServeContext, schemas: SchemaCompiler, disposals: Disposals): Promise<(c: Container) => void> {
  const { dataDir, logger, options } = context;
  const { settings } = options;
  const groupRecordPath = join(dataDir, 'plugin-groups.json');
  const sandbox = pluginSandbox(context);
  const folders = openPluginFolders(dataDir, sandbox.runsPluginUids);
  const { tmpRoot } = folders;
  const shortRoot = new ShortRunFolder(join(dataDir, 'run-folder'), folders.tmpMode);
  await sweepPluginGroups(groupRecordPath, tmpRoot, logger.child({ component: 'runtime' }));
  shortRoot.removeLeftovers();
  const packages = new FsPackageSource(dataDir, schemas, readPackageVersion(), { pluginRoot: folders.root });
  await packages.removeStaleStaging();
  let host: GrpcHostServer | undefined;
  disposals.add('Host API', () => host?.close());
  return (c) => {
    c.bind(PACKAGES).toConstantValue(packages);
    c.bind(HostPaths).toConstantValue(new FsHostPaths(dataDir, options.env));
    c.bind(PluginRuntime).toResolvedValue(
      () =>
        new GrpcPluginRuntime(logger.child({ component: 'runtime' }), {
          startTimeoutMs: settings.pluginStartTimeoutMs,
          healthIntervalMs: settings.healthIntervalMs,
          restartBackoffMs: settings.restartBackoffMs,
          env: options.env,
          requireMtls: options.pluginRequireMtls === true,
          tmpRoot,
          tmpPlace: { mode: folders.tmpMode, shortRoot: () => shortRoot.path() },
          groupRecordPath,
          sandbox,
        }),
    );
    c.bind(HostAccess).toResolvedValue(
      (sessions: HostSessions, requests: HostRequests) => {
        host = new GrpcHostServer(sessions, requests, { runRoot: join(dataDir, 'run') }, logger.child({ component: 'host' }));
        host.removeLeftovers();
        return host;
      },
      [HostSessions, HostRequests],
    );
  };
}

/** A root backend runs each plugin as a uid of its own unless the sandbox is `off` (docs/operations.md §4). */
export function runsPluginUids(options: Pick<ServeOptions, 'pluginSandbox'>): boolean {
  return process.getuid?.() === 0 && options.pluginSandbox !== 'off';
}

/**
 * `--plugin-sandbox` (probed once, here) and, under a root backend, each plugin's own uid from
 * `--plugin-uids`, kept in `<data-dir>/plugin-uids.json` (docs/operations.md).
 */
function pluginSandbox(context: ServeContext): PluginSandbox {
  const { options, dataDir, logger } = context;
  const range = options.pluginUids ?? { start: 2_000_000, end: 2_099_999 };
  const uids = runsPluginUids(options) ? new PluginUids(join(dataDir, 'plugin-uids.json'), range) : undefined;
  return PluginSandbox.open(options.pluginSandbox ?? 'auto', logger.child({ component: 'runtime' }), { uids, probeUid: range.start });
}
