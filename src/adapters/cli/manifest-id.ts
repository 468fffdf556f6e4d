import { openSync, readFileSync, readSync, closeSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { t as listTar } from 'tar';
import { parse } from 'yaml';
import { openPromise } from 'yauzl';
import { bundleIdFrom } from '../../domain/mcp-bundle';
import { UsageError } from './exit-codes';

const MANIFEST = /^(?:\.\/)?(?:[^/]+\/)?manifest\.yaml$/;

/** Whether the file at `packagePath` is a zip (an MCP Bundle). */
function isZipFile(packagePath: string): boolean {
  const fd = openSync(packagePath, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head.toString('latin1') === 'PK';
  } finally {
    closeSync(fd);
  }
}

/** The plugin id of an MCP Bundle: the one its `manifest.json` name gives (docs/mcp-servers.md). */
async function readBundleId(packagePath: string): Promise<string> {
  let text: string | undefined;
  try {
    const zip = await openPromise(packagePath, { lazyEntries: true, autoClose: false });
    try {
      for await (const entry of zip.eachEntry()) {
        if (entry.fileName !== 'manifest.json' || entry.uncompressedSize > 1024 * 1024) continue;
        const chunks: Buffer[] = [];
        for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
        text = Buffer.concat(chunks).toString('utf8');
        break;
      }
    } finally {
      zip.close();
    }
  } catch (error) {
    throw new UsageError(`cannot read the bundle ${packagePath}: ${(error as Error).message}`);
  }
  if (text === undefined) throw new UsageError(`${packagePath} has no manifest.json`);
  let name: unknown;
  try {
    name = (JSON.parse(text) as { name?: unknown } | null)?.name;
  } catch (error) {
    throw new UsageError(`${packagePath}: manifest.json is not JSON: ${(error as Error).message}`);
  }
  const id = typeof name === 'string' ? bundleIdFrom(name) : '';
  if (id === '') throw new UsageError(`${packagePath}: manifest.json's name gives no plugin id; name the plugin with --id`);
  return id;
}

/** The `id` in a package's manifest (a directory, a .tgz or an MCP Bundle), so `plugin upgrade` can address it. */
export async function readManifestId(packagePath: string): Promise<string> {
  let text: string | undefined;
  try {
    if (!statSync(packagePath).isDirectory() && isZipFile(packagePath)) return await readBundleId(packagePath);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read the package ${packagePath}: ${(error as Error).message}`);
  }
  try {
    if (statSync(packagePath).isDirectory()) {
      text = readFileSync(join(packagePath, 'manifest.yaml'), 'utf8');
    } else {
      const chunks: Buffer[] = [];
      let found = false;
      await listTar({
        file: packagePath,
        filter: (path) => !found && MANIFEST.test(path),
        onReadEntry: (entry) => {
          found = true;
          entry.on('data', (chunk: Buffer) => chunks.push(chunk));
        },
      });
      if (found) text = Buffer.concat(chunks).toString('utf8');
    }
  } catch (error) {
    throw new UsageError(`cannot read the package ${packagePath}: ${(error as Error).message}`);
  }
  if (text === undefined) throw new UsageError(`${packagePath} has no manifest.yaml`);
  let id: unknown;
  try {
    id = (parse(text) as { id?: unknown } | null)?.id;
  } catch (error) {
    throw new UsageError(`${packagePath}: manifest.yaml is not YAML: ${(error as Error).message}`);
  }
  if (typeof id !== 'string' || id.length === 0) throw new UsageError(`${packagePath}: manifest.yaml has no id`);
  return id;
}
