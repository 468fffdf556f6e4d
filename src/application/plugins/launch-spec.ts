import { hostCapabilities } from '../../domain/host-capabilities';
import type { PluginManifest } from '../../domain/manifest';
import type { HostAccess, HostProfile } from '../ports/host-access';
import type { InstalledPackages } from '../ports/installed-packages';
import type { PluginLaunchSpec } from '../ports/plugin-runtime';
import type { SealedValue } from '../ports/secret-box';

/**
 * How to run the installed version described by `manifest` with the configuration `config`:
 * each process started from the spec gets its own Host grant, acting with this version's
 * capabilities and answering GetConfig with `config`, and each checks the installed files first.
 */
export async function launchSpecFor(
  deps: { packages: InstalledPackages; host: HostAccess },
  manifest: PluginManifest,
  config: SealedValue | null,
): Promise<PluginLaunchSpec> {
  const installed = deps.packages.locate(manifest);
  const profile: HostProfile = { pluginId: manifest.id, version: manifest.version, capabilities: hostCapabilities(manifest.capabilities), config };
  return {
    pluginId: manifest.id,
    version: manifest.version,
    installDir: installed.installDir,
    executable: installed.executable,
    args: installed.args,
    dataDir: await deps.packages.dataDir(manifest.id),
    hostGrant: (placement) => deps.host.grant(profile, placement),
    checkFiles: () => deps.packages.verify(manifest),
  };
}

/** Launch specs for this backend's installed packages, each with its Host grant. */
export class LaunchSpecs {
  constructor(
    private readonly packages: InstalledPackages,
    private readonly host: HostAccess,
  ) {}

  /** See launchSpecFor. */
  for(manifest: PluginManifest, config: SealedValue | null): Promise<PluginLaunchSpec> {
    return launchSpecFor({ packages: this.packages, host: this.host }, manifest, config);
  }
}
