import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { t as listTar } from 'tar';
import { parse } from 'yaml';
import { UsageError } from './exit-codes';

const MANIFEST = /^(?:\.\/)?(?:[^/]+\/)?manifest\.yaml$/;

/** The `id` in a package's manifest (a directory or a .tgz), so `plugin upgrade` can address it. */
export async function readManifestId(packagePath: string): Promise<string> {
  let text: string | undefined;
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
