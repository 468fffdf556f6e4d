import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const root = resolve(__dirname, '..', '..');

/**
 * The folders of src/application from the bottom up (docs/architecture.md, "The application's
 * folders"): a folder imports only folders below it. `(root)` is the files directly in
 * src/application (the settings), at the bottom with `shared`.
 */
const ORDER: readonly (readonly string[])[] = [
  ['(root)', 'shared'],
  ['ports'],
  ['link'],
  ['logs'],
  ['catalog'],
  ['plugins'],
  ['scopes'],
  ['approvals'],
  ['invocation'],
  ['sessions'],
  ['replicas'],
  ['host'],
  ['console'],
  ['backend'],
  ['agentctl'],
];

const level = new Map(ORDER.flatMap((folders, index) => folders.map((folder) => [folder, index] as const)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The src/application folder a path is in, `(root)` for a file directly in it, undefined outside. */
function folderOf(application: string, path: string): string | undefined {
  const inside = relative(application, path);
  if (inside.startsWith('..')) return undefined;
  const parts = inside.split(sep);
  return parts.length === 1 ? '(root)' : parts[0];
}

/** Every import from one src/application folder into another, type-only ones and re-exports included. */
function folderArrows(tree: string): Array<{ file: string; from: string; to: string }> {
  const application = join(tree, 'src', 'application');
  const arrows: Array<{ file: string; from: string; to: string }> = [];
  for (const path of sourceFiles(application)) {
    const from = folderOf(application, path)!;
    for (const imported of ts.preProcessFile(readFileSync(path, 'utf8'), true, true).importedFiles) {
      if (!imported.fileName.startsWith('.')) continue;
      const to = folderOf(application, resolve(dirname(path), imported.fileName));
      if (to !== undefined && to !== from) arrows.push({ file: relative(tree, path), from, to });
    }
  }
  return arrows;
}

/** What breaks the order: an arrow up or sideways, or a folder the order does not place. */
function violations(tree: string): string[] {
  const found = new Set<string>();
  const application = join(tree, 'src', 'application');
  for (const entry of readdirSync(application, { withFileTypes: true })) {
    if (entry.isDirectory() && !level.has(entry.name)) found.add(`${entry.name}: a folder the order does not place`);
  }
  for (const { file, from, to } of folderArrows(tree)) {
    const [a, b] = [level.get(from), level.get(to)];
    if (a === undefined || b === undefined) continue;
    if (b >= a) found.add(`${file}: ${from} -> ${to}`);
  }
  return [...found].sort();
}

describe('the folders of src/application', () => {
  it('import downward only, in the order docs/architecture.md gives', () => {
    expect(folderArrows(root).length).toBeGreaterThan(50);
    expect(violations(root)).toEqual([]);
  });

  it('are all named in docs/architecture.md in that order', () => {
    const docs = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    const line = docs.split('\n').find((text) => text.startsWith('Folder order:'));
    expect(line).toBeDefined();
    const named = [...line!.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    expect(named).toEqual(ORDER.flat());
  });

  describe('in a copy of the tree', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'toolport-application-order-'));
      cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true });
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('fails on a planted arrow back up, a sideways one, a type-only one and an unplaced folder', () => {
      writeFileSync(
        join(dir, 'src/application/catalog/planted-up.ts'),
        "import { PluginProcesses } from '../plugins/plugin-processes';\nexport const planted = PluginProcesses;\n",
      );
      writeFileSync(join(dir, 'src/application/ports/planted-type.ts'), "export type { CatalogService } from '../catalog/catalog-service';\n");
      writeFileSync(join(dir, 'src/application/shared/planted-root.ts'), "import type { Settings } from '../settings';\nexport type Planted = Settings;\n");
      cpSync(join(dir, 'src/application/shared'), join(dir, 'src/application/planted-folder'), { recursive: true });
      expect(violations(dir)).toEqual([
        'planted-folder: a folder the order does not place',
        'src/application/catalog/planted-up.ts: catalog -> plugins',
        'src/application/ports/planted-type.ts: ports -> catalog',
        'src/application/shared/planted-root.ts: shared -> (root)',
      ]);
    });
  });
});
