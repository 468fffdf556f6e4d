import { hostCapabilities } from '../../domain/host-capabilities';
import { PluginStartError } from '../../domain/errors';
import { isMcpServerManifest, type PluginManifest } from '../../domain/manifest';
import { substituteMcpRuntime } from '../../domain/mcp-runtime-substitution';
import { isBareInterpreter } from '../../domain/runtime-validation';
import type { HostAccess, HostProfile } from '../ports/host-access';
import type { InstalledPackages } from '../ports/installed-packages';
import type { PluginLaunchSpec } from '../ports/plugin-runtime';
import type { SealedValue } from '../ports/secret-box';
import type { GrantedReach } from './granted-reach';

/**
 * How to run the installed version described by `manifest` with the configuration `config`:
 * each process started from the spec gets its own Host grant, acting with this version's
 * capabilities and answering GetConfig with `config`, and each checks the installed files first
 * and resolves its granted reach (GrantedReach) anew, so a changed path or link is seen.
 */
export async function launchSpecFor(
  deps: { packages: InstalledPackages; host: HostAccess; reach: GrantedReach },
  manifest: PluginManifest,
  config: SealedValue | null,
): Promise<PluginLaunchSpec> {
  if (isMcpServerManifest(manifest)) return mcpServerSpecFor(deps, manifest, config);
  const installed = deps.packages.locate(manifest);
  const profile: HostProfile = { pluginId: manifest.id, version: manifest.version, capabilities: hostCapabilities(manifest.capabilities), config };
  const dataDir = await deps.packages.dataDir(manifest.id);
  const target = { manifest, installDir: installed.installDir, executable: installed.executable, dataDir };
  return {
    pluginId: manifest.id,
    version: manifest.version,
    installDir: installed.installDir,
    executable: installed.executable,
    args: installed.args,
    dataDir,
    hostGrant: (placement) => deps.host.grant(profile, placement),
    checkFiles: () => deps.packages.verify(manifest),
    permissions: () => deps.reach.resolve(target, config),
  };
}

/**
 * An MCP server's start (docs/plugin-protocol.md, MCP servers): its command (`node` or
 * `python3` looked up on the plugins' PATH), its args and env substituted with this
 * configuration, no Host API. A substitution without a value, or a bare command not on PATH,
 * fails the start.
 */
async function mcpServerSpecFor(
  deps: { packages: InstalledPackages; reach: GrantedReach },
  manifest: PluginManifest & { runtime: { type: 'mcp-stdio' } },
  config: SealedValue | null,
): Promise<PluginLaunchSpec> {
  const installed = deps.packages.locate(manifest);
  const dataDir = await deps.packages.dataDir(manifest.id);
  const failed = (reason: string): PluginStartError => new PluginStartError(`plugin ${manifest.id} ${manifest.version} failed to start: ${reason}`, null, []);
  const command = manifest.runtime.command;
  const executable = isBareInterpreter(command) ? await deps.reach.lookUpCommand(command) : installed.executable;
  if (executable === undefined) throw failed(`its command "${command}" is not on the PATH plugins are given`);
  const target = { manifest, installDir: installed.installDir, executable, dataDir };
  const values = deps.reach.configurationValues(target, config);
  const substituted = substituteMcpRuntime(manifest.runtime, { package: installed.installDir, dataDir, config: values });
  if (!substituted.ok) throw failed(`${substituted.at} substitutes \${config.${substituted.missingKey}}, which has no value`);
  return {
    pluginId: manifest.id,
    version: manifest.version,
    installDir: installed.installDir,
    executable,
    args: substituted.args,
    dataDir,
    checkFiles: () => deps.packages.verify(manifest),
    permissions: () => deps.reach.resolve(target, config),
    mcpServer: { env: substituted.env },
  };
}

/** Launch specs for this backend's installed packages, each with its Host grant. */
export class LaunchSpecs {
  constructor(
    private readonly packages: InstalledPackages,
    private readonly host: HostAccess,
    private readonly reach: GrantedReach,
  ) {}

  /** See launchSpecFor. */
  for(manifest: PluginManifest, config: SealedValue | null): Promise<PluginLaunchSpec> {
    return launchSpecFor({ packages: this.packages, host: this.host, reach: this.reach }, manifest, config);
  }

  /** What an install or upgrade warns of the installed version's interpreters (GrantedReach.interpreterWarnings). */
  async warnings(manifest: PluginManifest): Promise<Array<{ path: string; message: string }>> {
    const installed = this.packages.locate(manifest);
    const dataDir = await this.packages.dataDir(manifest.id);
    const bare = isMcpServerManifest(manifest) && isBareInterpreter(manifest.runtime.command);
    const executable = bare ? await this.reach.lookUpCommand(installed.executable) : installed.executable;
    if (executable === undefined)
      return [{ path: 'runtime.command', message: `"${installed.executable}" is not on the PATH plugins are given: the plugin will not start` }];
    return this.reach.interpreterWarnings({ manifest, installDir: installed.installDir, executable, dataDir });
  }
}
