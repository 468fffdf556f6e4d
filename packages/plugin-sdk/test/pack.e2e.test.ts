import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { t as listTar } from 'tar';

const PACKAGE_DIR = resolve(__dirname, '..');

/** `npm pack` makes the tarball an author installs outside this repository. */
describe('the packed @toolport/plugin-sdk', () => {
  let work: string;
  let tarball: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'toolport-sdk-pack-'));
    // What `npm run build` (run before the e2e suite) made: packing without prepack leaves dist/
    // alone while other suites' backends load dist/protocol.js from it.
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work, '--silent'], { cwd: PACKAGE_DIR, stdio: ['ignore', 'ignore', 'pipe'] });
    tarball = join(
      work,
      readdirSync(work).find((name) => name.endsWith('.tgz'))!,
    );
  }, 120_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('holds its build, its types and the protos a plugin in another language needs, and nothing else', async () => {
    const files: string[] = [];
    await listTar({ file: tarball, onReadEntry: (entry) => files.push(entry.path.replace(/^package\//, '')) });
    expect(files.filter((file) => !/^(dist\/.+\.(js|d\.ts)|proto\/.+\.proto|package\.json|README\.md)$/.test(file))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/protocol.js', 'package.json', 'README.md']));
    expect(files.filter((file) => file.startsWith('proto/')).sort()).toEqual([
      'proto/grpc/health/v1/health.proto',
      'proto/plugin/grpc_controller.proto',
      'proto/toolport/plugin/v1/host.proto',
      'proto/toolport/plugin/v1/plugin.proto',
    ]);
  });

  it('installs offline into an empty project, which can then load it and read its types', () => {
    const project = join(work, 'author-project');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'author-project', version: '1.0.0', private: true }));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project, stdio: ['ignore', 'ignore', 'pipe'] });
    const loaded = execFileSync(process.execPath, ['-e', "const sdk = require('@toolport/plugin-sdk'); console.log(Object.keys(sdk).sort().join(','))"], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(loaded.trim()).toBe('HostError,createPluginLogger,pluginHost,serve');
    expect(readdirSync(join(project, 'node_modules'))).toEqual(['.package-lock.json', '@toolport']);
    const types = readFileSync(join(project, 'node_modules', '@toolport', 'plugin-sdk', 'dist', 'index.d.ts'), 'utf8');
    expect(types).toContain('ToolHandler');
  }, 60_000);
});
