import { ToolportError } from '../../domain/errors';
import type { JsonObject } from '../../domain/json';
import type { PluginManifest } from '../../domain/manifest';
import { expandTemplate, inSystemDirectory, isWithin, substitutePath } from '../../domain/permission-paths';
import { permissionsOf } from '../../domain/permissions';
import type { HostPaths, ResolvedPath } from '../ports/host-paths';
import type { LaunchPermissions } from '../ports/plugin-runtime';
import type { SealedValue, SecretBox } from '../ports/secret-box';
import { openConfiguration } from './plugin-configuration';

/** The installed version a start runs, as its launch spec names it. */
export interface ReachTarget {
  manifest: PluginManifest;
  installDir: string;
  executable: string;
  dataDir: string;
}

/** A `#!` line may name a script whose own `#!` names another: followed this deep, as Linux does. */
const MAX_INTERPRETER_DEPTH = 4;

function isAbsolute(candidate: string): boolean {
  return candidate.startsWith('/');
}

/** The runtime says which plugin failed to start; the reason names the path. */
function refuse(_target: ReachTarget, message: string): never {
  throw new ToolportError('PLUGIN_START_FAILED', message);
}

/** One interpreter of the executable: its realpath and the `#!` line that named it. */
interface Interpreter {
  realpath: string;
  line: string;
  /** The bare name `env` looked up on PATH (`node` of `#!/usr/bin/env node`), if any. */
  name?: string;
}

/**
 * What one start of a plugin may reach (docs/lifecycle.md, "Permissions and grants"), resolved
 * at each start from its granted manifest `permissions`: each path substituted, resolved to its
 * realpath, which must exist (nothing is created), lie outside the backend's data dir unless in
 * the plugin's own folders (its data dir; its version folder for reading), not hold the data dir,
 * and not be reached through a symbolic link in a folder the plugin can write (its data dir, a
 * granted write path, a world-writable folder). The executable's interpreters (`#!` lines,
 * through `env NAME` on the plugins' PATH) outside the system directories must be covered by a
 * granted path, except the backend's own Node.js, whose folder is added read-only so a Node
 * plugin runs wherever the backend's Node is installed. Answers exactly the checked realpaths;
 * anything else fails the start (PLUGIN_START_FAILED) naming the path.
 */
export class GrantedReach {
  constructor(
    private readonly paths: HostPaths,
    private readonly secrets: SecretBox,
  ) {}

  async resolve(target: ReachTarget, config: SealedValue | null): Promise<LaunchPermissions> {
    const declared = permissionsOf(target.manifest);
    const values = this.configurationOf(target, config);
    const own = { version: await this.ownFolder(target, target.installDir), data: await this.ownFolder(target, target.dataDir) };
    const substitute = (list: 'read_paths' | 'write_paths', template: string, index: number): Promise<ResolvedPath[]> =>
      this.substituted(target, `permissions.${list}[${index}]`, template, { package: target.installDir, dataDir: target.dataDir, config: values });
    const writes = (await Promise.all(declared.write_paths.map((template, index) => substitute('write_paths', template, index)))).flat();
    const reads = (await Promise.all(declared.read_paths.map((template, index) => substitute('read_paths', template, index)))).flat();
    const writable = [own.data, ...writes.map((resolved) => resolved.realpath)];
    writes.forEach((resolved, index) => this.checkPlace(target, `permissions.write_paths[${index}]`, resolved, own, writable, true));
    reads.forEach((resolved, index) => this.checkPlace(target, `permissions.read_paths[${index}]`, resolved, own, writable, false));
    const readPaths = reads.map((resolved) => resolved.realpath);
    const writePaths = writes.map((resolved) => resolved.realpath);
    for (const interpreter of await this.interpretersOf(target)) {
      const real = interpreter.realpath;
      if (inSystemDirectory(real) || isWithin(real, own.version)) continue;
      if ([...readPaths, ...writePaths].some((granted) => isWithin(real, granted))) continue;
      if (real === this.paths.ownNode) {
        readPaths.push(real.slice(0, real.lastIndexOf('/')) || '/');
        continue;
      }
      refuse(
        target,
        `its interpreter ${real} (from "#!${interpreter.line}") lies outside the system directories (/usr, /bin, /sbin, /lib*, /etc); grant a read_paths entry covering it`,
      );
    }
    return { network: declared.network, readPaths: [...new Set(readPaths)], writePaths: [...new Set(writePaths)], env: [...declared.env] };
  }

  /**
   * What an install says of the executable's interpreters (docs/lifecycle.md): each outside the
   * system directories that no absolute or `${package}` read path covers, and that is not the
   * backend's own Node.js, as a warning. Never throws.
   */
  async interpreterWarnings(target: ReachTarget): Promise<Array<{ path: string; message: string }>> {
    try {
      const declared = permissionsOf(target.manifest);
      const covering: string[] = [];
      for (const template of [...declared.read_paths, ...declared.write_paths]) {
        const substituted = substitutePath(template, { package: target.installDir, dataDir: target.dataDir, config: {} });
        const resolved = substituted.ok ? await this.paths.resolve(substituted.path) : undefined;
        if (resolved) covering.push(resolved.realpath);
      }
      const version = (await this.paths.resolve(target.installDir))?.realpath ?? target.installDir;
      return (await this.interpretersOf(target))
        .filter(
          ({ realpath: real }) =>
            !inSystemDirectory(real) && !isWithin(real, version) && real !== this.paths.ownNode && !covering.some((granted) => isWithin(real, granted)),
        )
        .map((interpreter) => ({
          path: 'permissions.read_paths',
          message: `the interpreter ${interpreter.realpath} (from "#!${interpreter.line}") lies outside the system directories and no read_paths entry covers it: sandboxed, the plugin will not start`,
        }));
    } catch {
      return [];
    }
  }

  /**
   * The realpath of the executable `name` (an MCP server's bare `node` or `python3`) on the
   * PATH plugins are given; undefined when there is none. Never throws.
   */
  async lookUpCommand(name: string): Promise<string | undefined> {
    const found = await this.paths.lookUp(name);
    return found === undefined ? undefined : (await this.paths.resolve(found))?.realpath;
  }

  /** The configuration `config` opens to; fails the start when this backend cannot decrypt it. */
  configurationValues(target: ReachTarget, config: SealedValue | null): JsonObject {
    return this.configurationOf(target, config);
  }

  private configurationOf(target: ReachTarget, config: SealedValue | null) {
    try {
      return openConfiguration(this.secrets, target.manifest.id, config);
    } catch {
      return refuse(target, "its configuration cannot be decrypted with this backend's secret key");
    }
  }

  private async ownFolder(target: ReachTarget, folder: string): Promise<string> {
    const resolved = await this.paths.resolve(folder);
    return resolved?.realpath ?? refuse(target, `its folder ${folder} does not exist`);
  }

  /** One path, or one per element of a list value (an MCP Bundle's `multiple` directories). */
  private async substituted(target: ReachTarget, at: string, template: string, values: Parameters<typeof substitutePath>[1]): Promise<ResolvedPath[]> {
    const result = expandTemplate(template, values);
    if (!result.ok) return refuse(target, `${at} ("${template}") substitutes \${config.${result.missingKey}}, which has no value`);
    const resolved: ResolvedPath[] = [];
    for (const path of result.values) {
      if (!isAbsolute(path)) return refuse(target, `${at} ("${template}") is ${path}, which is not an absolute path`);
      resolved.push((await this.paths.resolve(path)) ?? refuse(target, `${at}: ${path} does not exist (a granted path is never created)`));
    }
    return resolved;
  }

  private checkPlace(
    target: ReachTarget,
    at: string,
    resolved: ResolvedPath,
    own: { version: string; data: string },
    writable: string[],
    forWriting: boolean,
  ): void {
    const { realpath: real } = resolved;
    const dataDir = this.paths.dataDir;
    if (isWithin(dataDir, real)) refuse(target, `${at}: ${real} holds the backend's data dir`);
    const ownPlace = isWithin(real, own.data) || (!forWriting && isWithin(real, own.version));
    if (isWithin(real, dataDir) && !ownPlace) {
      refuse(target, `${at}: ${real} lies in the backend's data dir, outside the plugin's own ${forWriting ? 'data dir' : 'folders'}`);
    }
    const link = resolved.links.find((met) => met.othersMayWrite || writable.some((folder) => isWithin(met.folder, folder)));
    if (link)
      refuse(
        target,
        `${at}: ${real} is reached through a symbolic link in ${link.folder}, a folder the plugin ${link.othersMayWrite ? 'or any user' : ''} can write`.replace(
          '  ',
          ' ',
        ),
      );
  }

  /** The executable's interpreter chain, each resolved to its realpath; a missing one fails the start. */
  private async interpretersOf(target: ReachTarget): Promise<Interpreter[]> {
    const found: Interpreter[] = [];
    let file = target.executable;
    // An MCP server's bare `node` or `python3` is itself outside the package: it needs reach like an interpreter.
    if (!isWithin(file, target.installDir)) {
      const resolved = await this.paths.resolve(file);
      if (resolved) found.push({ realpath: resolved.realpath, line: file });
    }
    for (let depth = 0; depth < MAX_INTERPRETER_DEPTH; depth += 1) {
      const line = await this.paths.interpreterLine(file);
      if (line === undefined || line === '') break;
      const [program, ...args] = line.split(/\s+/) as [string, ...string[]];
      const viaEnv = isAbsolute(program) && program.split('/').pop() === 'env' ? args.find((arg) => !arg.startsWith('-') && !arg.includes('=')) : undefined;
      const named = viaEnv === undefined ? program : await this.paths.lookUp(viaEnv);
      if (named === undefined) refuse(target, `its interpreter "${viaEnv}" (from "#!${line}") is not on the PATH plugins are given`);
      if (viaEnv !== undefined) {
        const env = await this.paths.resolve(program);
        if (env) found.push({ realpath: env.realpath, line });
      }
      const resolved = isAbsolute(named) ? await this.paths.resolve(named) : undefined;
      if (!resolved) refuse(target, `its interpreter ${named} (from "#!${line}") does not exist`);
      found.push({ realpath: resolved.realpath, line, ...(viaEnv !== undefined ? { name: viaEnv } : {}) });
      file = resolved.realpath;
    }
    return found;
  }
}
