import type { PluginManifest } from '../../domain/manifest';
import type { PackageSource } from '../ports/package-source';
import type { PluginLaunchSpec } from '../ports/plugin-runtime';

/** How to run the installed version described by `manifest`. */
export async function launchSpecFor(packages: PackageSource, manifest: PluginManifest): Promise<PluginLaunchSpec> {
  const installed = packages.locate(manifest);
  return {
    pluginId: manifest.id,
    version: manifest.version,
    installDir: installed.installDir,
    executable: installed.executable,
    args: installed.args,
    dataDir: await packages.dataDir(manifest.id),
  };
}
