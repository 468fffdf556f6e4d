import { makeFolders } from '../../shared/make-folders';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DEFAULT_SETTINGS } from '../../../application/settings';
import { isPluginId } from '../../../domain/manifest-validation';
import { exposedToolName } from '../../../domain/naming';
import { EXIT, UsageError } from '../exit-codes';
import { toolportCommand } from '../toolport-command';
import type { CliIo, CommandInput } from '../program';

/** This Toolport's checkout: src/ and dist/ sit at the same depth below it. */
const TOOLPORT_ROOT = resolve(__dirname, '..', '..', '..', '..');
const LANGUAGES = { ts: 'typescript', python: 'python' } as const;
type Language = keyof typeof LANGUAGES;

/** Files whose name in the template cannot be their name in the project (a repository would obey them). */
const RENAMED: Record<string, string> = { gitignore: '.gitignore' };

/**
 * `toolport plugin init <dir> [--lang ts|python] [--id ID]` (docs/cli.md): writes a plugin
 * project with one tool, `hello`, from templates/ of this Toolport. The TypeScript project
 * depends on this Toolport's SDK package folder, and on its esbuild and typescript when it has
 * them, all by relative `file:` paths: `npm install` then needs no registry. The Python project's package/ needs no build.
 */
export function initCommand(io: CliIo): (input: CommandInput) => Promise<number> {
  return async (input) => {
    const dir = resolve(input.args[0]);
    const lang = languageOf(input.options.lang);
    const id = pluginIdFor(dir, input.options.id);
    refuseUnlessEmpty(dir, input.args[0]);
    try {
      makeFolders(dir);
    } catch (error) {
      throw new UsageError(`cannot create ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    // Relative paths between real paths: npm resolves a `file:` path from the project's real folder.
    const project = realpathSync(dir);
    // `toolport` when that is this Toolport on PATH, else its bin/toolport's absolute path.
    const toolport = toolportCommand(io.env);
    const values: Record<string, string> = {
      PLUGIN_ID: id,
      TOOLPORT: toolport,
      PATH_NOTE:
        toolport === 'toolport'
          ? ''
          : `\n(\`${toolport}\` is the Toolport that made this folder; \`npm link\` in ${TOOLPORT_ROOT} puts it on your PATH as \`toolport\`.)`,
      HELLO_TOOL: exposedToolName(io.env.TOOLPORT_TOOL_PREFIX || DEFAULT_SETTINGS.toolPrefix, id, 'hello'),
      TOOLPORT_ROOT,
      SDK_SPEC: fileSpec(project, join(TOOLPORT_ROOT, 'packages', 'plugin-sdk')),
      ESBUILD_SPEC: ownCopySpec(project, 'esbuild'),
      TYPESCRIPT_SPEC: ownCopySpec(project, 'typescript'),
    };
    copyTemplate(join(TOOLPORT_ROOT, 'templates', LANGUAGES[lang]), dir, values);
    if (lang === 'python') copyPythonProtocol(join(dir, 'package'));
    // A folder below the current one reads best relative; anything else as the absolute path it is.
    const below = relative(process.cwd(), dir);
    const shown = below === '' ? '.' : below.startsWith('..') || isAbsolute(below) ? dir : below;
    const build = lang === 'ts' ? '  npm install && npm run build\n' : '';
    io.stdout(
      `Created a ${lang === 'ts' ? 'TypeScript' : 'Python'} plugin project for ${id} in ${shown}. Next:\n` +
        `  cd ${shown}\n${build}  ${toolport} plugin validate package\n  ${toolport} plugin install package --force\n` +
        `  ${toolport} tool call ${values.HELLO_TOOL} --args '{"name": "Ada"}'\n` +
        (toolport === 'toolport' ? '' : `(To type just toolport: run npm link in ${TOOLPORT_ROOT}.)\n`),
    );
    return EXIT.ok;
  };
}

function languageOf(value: unknown): Language {
  const lang = value === undefined ? 'ts' : String(value);
  if (lang === 'ts' || lang === 'python') return lang;
  throw new UsageError(`--lang must be ts or python, not ${JSON.stringify(lang)}`);
}

/** `--id`, else the folder's name when it is a valid plugin id. */
function pluginIdFor(dir: string, given: unknown): string {
  const id = given === undefined ? basename(dir).toLowerCase() : String(given);
  if (isPluginId(id)) return id;
  const what =
    given === undefined ? `the folder name ${JSON.stringify(id)} is not a plugin id; pass one with --id` : `--id ${JSON.stringify(id)} is not a plugin id`;
  throw new UsageError(`${what} (lower-case letters, digits, ".", "_" and "-", such as acme.notes)`);
}

function refuseUnlessEmpty(dir: string, shown: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) throw new UsageError(`${shown} exists and is not a folder`);
  if (readdirSync(dir).length > 0) throw new UsageError(`${shown} is not empty: plugin init writes a new project into a new or empty folder`);
}

/**
 * A `file:` dependency on `target`, relative to the project (docs/cli.md, plugin init): the
 * project's package.json names no absolute path of this machine, and keeps working wherever the
 * project and this clone move together.
 */
function fileSpec(project: string, target: string): string {
  const path = relative(project, realOrSelf(target)).split(sep).join('/');
  return `file:${path.startsWith('.') ? path : `./${path}`}`;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Toolport's own copy of a dev tool when this checkout has one (no download), else exactly its version from the registry. */
function ownCopySpec(project: string, name: 'esbuild' | 'typescript'): string {
  const own = join(TOOLPORT_ROOT, 'node_modules', name);
  if (existsSync(join(own, 'package.json'))) return fileSpec(project, own);
  const manifest = JSON.parse(readFileSync(join(TOOLPORT_ROOT, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  const range = manifest.devDependencies?.[name];
  // `~5.9.3` → `5.9.3`: the project gets the version this Toolport is built and tested with.
  return range ? range.replace(/^[~^]/, '') : 'latest';
}

/**
 * The Python project's package/ is installable as written: it gets the example's protocol
 * module and gRPC stubs (kept equal to proto/ by a test), so one copy of that code serves both.
 */
function copyPythonProtocol(packageDir: string): void {
  const example = join(TOOLPORT_ROOT, 'examples', 'plugins', 'greeter-py');
  const notBytecode = (source: string) => basename(source) !== '__pycache__';
  cpSync(join(example, 'stubs'), join(packageDir, 'stubs'), { recursive: true, filter: notBytecode });
  cpSync(join(example, 'toolport_plugin.py'), join(packageDir, 'toolport_plugin.py'));
}

function copyTemplate(from: string, to: string, values: Record<string, string>): void {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, RENAMED[entry.name] ?? entry.name);
    if (entry.isDirectory()) {
      mkdirSync(target);
      copyTemplate(source, target, values);
      continue;
    }
    const text = readFileSync(source, 'utf8').replace(/\{\{([A-Z_]+)\}\}/g, (whole, key: string) => values[key] ?? whole);
    writeFileSync(target, text, { mode: statSync(source).mode & 0o777 });
  }
}
