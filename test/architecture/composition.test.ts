import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(__dirname, '..', '..');

/** The longest a function in src/composition may be (docs/architecture.md, "The composition root"). */
const MAX_FUNCTION_LINES = 80;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function compositionFiles(tree: string): string[] {
  return sourceFiles(join(tree, 'src', 'composition'));
}

/** Every import of src/adapters/memory from src/composition, type-only ones, re-exports and `import()` included. */
function memoryImports(tree: string): string[] {
  const memory = join(tree, 'src', 'adapters', 'memory');
  const found: string[] = [];
  for (const path of compositionFiles(tree)) {
    for (const imported of ts.preProcessFile(readFileSync(path, 'utf8'), true, true).importedFiles) {
      if (!imported.fileName.startsWith('.')) continue;
      const target = resolve(dirname(path), imported.fileName);
      if (!relative(memory, target).startsWith('..')) found.push(`${relative(tree, path)} imports ${imported.fileName}`);
    }
  }
  return found.sort();
}

interface FunctionLength {
  where: string;
  lines: number;
}

function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  return '(anonymous)';
}

/** Every function, method, arrow and accessor in src/composition with its length in lines, first line to last. */
function functionLengths(tree: string): FunctionLength[] {
  const lengths: FunctionLength[] = [];
  for (const path of compositionFiles(tree)) {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const fn = node as ts.FunctionLikeDeclaration;
        const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
        lengths.push({ where: `${relative(tree, path)}:${first + 1} ${functionName(fn, source)}`, lines: last - first + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return lengths;
}

function tooLong(tree: string): string[] {
  return functionLengths(tree)
    .filter((fn) => fn.lines > MAX_FUNCTION_LINES)
    .map((fn) => `${fn.where}: ${fn.lines} lines`)
    .sort();
}

describe('the composition root', () => {
  it('imports nothing from src/adapters/memory: a production container has no in-memory default', () => {
    expect(compositionFiles(root).length).toBeGreaterThan(5);
    expect(memoryImports(root)).toEqual([]);
  });

  it(`has no function longer than ${MAX_FUNCTION_LINES} lines`, () => {
    expect(functionLengths(root).length).toBeGreaterThan(30);
    expect(tooLong(root)).toEqual([]);
  });

  describe('in a copy of the tree', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'toolport-composition-'));
      cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true });
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('fails on a planted import of an in-memory adapter, a type-only one and a dynamic one', () => {
      writeFileSync(
        join(dir, 'src/composition/planted-memory.ts'),
        [
          "import { InMemoryPluginStore } from '../adapters/memory/in-memory-plugin-store';",
          "import type { InMemoryHostAccess } from '../adapters/memory/in-memory-host-access';",
          'export const store = (): unknown => new InMemoryPluginStore();',
          'export type Access = InMemoryHostAccess;',
          "export const later = (): Promise<unknown> => import('../adapters/memory/in-memory-plugin-logs');",
          '',
        ].join('\n'),
      );
      expect(memoryImports(dir).filter((line) => line.startsWith('src/composition/planted-memory.ts'))).toEqual([
        'src/composition/planted-memory.ts imports ../adapters/memory/in-memory-host-access',
        'src/composition/planted-memory.ts imports ../adapters/memory/in-memory-plugin-logs',
        'src/composition/planted-memory.ts imports ../adapters/memory/in-memory-plugin-store',
      ]);
    });

    it(`fails on a planted function, method and arrow of ${MAX_FUNCTION_LINES + 1} lines, and passes one of ${MAX_FUNCTION_LINES}`, () => {
      const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
      writeFileSync(
        join(dir, 'src/composition/planted-long.ts'),
        [
          `export function long(): void {\n${body(MAX_FUNCTION_LINES + 1)}\n}`,
          `export function justRight(): void {\n${body(MAX_FUNCTION_LINES)}\n}`,
          `export class Planted {\n  method(): void {\n${body(MAX_FUNCTION_LINES + 1)}\n  }\n}`,
          `export const arrow = (): void => {\n${body(MAX_FUNCTION_LINES + 1)}\n};`,
          '',
        ].join('\n'),
      );
      const planted = tooLong(dir).filter((line) => line.startsWith('src/composition/planted-long.ts'));
      expect(planted.map((line) => line.replace(/:\d+ /, ' ')).sort()).toEqual([
        `src/composition/planted-long.ts arrow: ${MAX_FUNCTION_LINES + 1} lines`,
        `src/composition/planted-long.ts long: ${MAX_FUNCTION_LINES + 1} lines`,
        `src/composition/planted-long.ts method: ${MAX_FUNCTION_LINES + 1} lines`,
      ]);
    });
  });
});
