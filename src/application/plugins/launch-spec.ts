import { hostCapabilities } from '../../domain/host-capabilities';
import type { PluginManifest } from '../../domain/manifest';
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
    return this.reach.interpreterWarnings({ manifest, installDir: installed.installDir, executable: installed.executable, dataDir });
  }
}
