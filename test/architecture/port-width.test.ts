import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(__dirname, '..', '..');

/** The most abstract members a port may have (docs/architecture.md, "The backend's ports"). */
const MAX_ABSTRACT_MEMBERS = 10;

interface PortWidth {
  file: string;
  name: string;
  abstractMembers: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every abstract class under `tree`/src (a port is one, doubling as its DI token), with its count of abstract members. */
function portWidths(tree: string): PortWidth[] {
  const widths: PortWidth[] = [];
  for (const path of sourceFiles(join(tree, 'src'))) {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.AbstractKeyword)) {
        const abstractMembers = node.members.filter((member) =>
          (ts.canHaveModifiers(member) ? ts.getModifiers(member) : undefined)?.some((m) => m.kind === ts.SyntaxKind.AbstractKeyword),
        ).length;
        widths.push({ file: relative(tree, path), name: node.name?.text ?? '(anonymous)', abstractMembers });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return widths;
}

function tooWide(tree: string): string[] {
  return portWidths(tree)
    .filter((port) => port.abstractMembers > MAX_ABSTRACT_MEMBERS)
    .map((port) => `${port.name} (${port.file}): ${port.abstractMembers}`);
}

describe('port width', () => {
  it(`finds the ports, and none has more than ${MAX_ABSTRACT_MEMBERS} abstract members`, () => {
    const names = portWidths(root).map((port) => port.name);
    expect(names).toEqual(
      expect.arrayContaining(['PluginRecords', 'SessionStore', 'HostEntries', 'PluginRuntime', 'ReplicaRoster', 'PackageStaging', 'InstalledPackages']),
    );
    expect(tooWide(root)).toEqual([]);
  });

  describe('in a copy of the tree', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'toolport-port-width-'));
      cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true });
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('fails on a planted port with one abstract member too many, wherever it is', () => {
      const members = Array.from({ length: MAX_ABSTRACT_MEMBERS + 1 }, (_, i) => `  abstract m${i}(): void;`).join('\n');
      writeFileSync(join(dir, 'src/application/plugins/planted-port.ts'), `export abstract class PlantedPort {\n${members}\n  helper(): void {}\n}\n`);
      expect(tooWide(dir)).toEqual([`PlantedPort (src/application/plugins/planted-port.ts): ${MAX_ABSTRACT_MEMBERS + 1}`]);
    });
  });
});
