import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..', '..', '..');
const SOURCES = join(root, 'test', 'fixtures', 'go');
const PROTO = join(root, 'proto');
const PLUGIN_PROTO = 'toolport/plugin/v1/plugin.proto';
/** Debian's Go packages live here (GOPATH mode: no module proxy on this machine). */
const DEBIAN_GOPATH = '/usr/share/gocode';
const CACHE = join(root, 'node_modules', '.cache', 'toolport-go-fixtures');
const NEEDED =
  'the Go fixtures need Debian packages golang-go golang-github-hashicorp-go-plugin-dev golang-google-grpc-dev ' +
  'golang-goprotobuf-dev protobuf-compiler (apt-get install -y …; .ci/run installs them)';

export interface GoFixtures {
  /** A go-plugin 1.0.1 plugin serving toolport.plugin.v1.Plugin (tools echo and log). */
  plugin: string;
  /** A go-plugin 1.0.1 host with AutoMTLS: `host <plugin command…>` calls echo once and prints the answer. */
  host: string;
}

/**
 * Builds test/fixtures/go with Debian's go-plugin 1.0.1, once per change of its sources, the
 * proto or the Go version: binaries are cached under node_modules/.cache, so the suite pays
 * the ~15 s build only the first time. Test files building at once each build in a private
 * folder and the first rename wins.
 */
export function buildGoFixtures(): GoFixtures {
  const goVersion = run('go', ['version']);
  const key = createHash('sha256')
    .update(goVersion)
    .update(readFileSync(join(PROTO, PLUGIN_PROTO)))
    .update(
      listFiles(SOURCES)
        .map((file) => `${file}\0${readFileSync(join(SOURCES, file), 'utf8')}`)
        .join('\0'),
    )
    .digest('hex')
    .slice(0, 16);
  const out = join(CACHE, key);
  const fixtures = { plugin: join(out, 'toolport-go-plugin'), host: join(out, 'toolport-go-host') };
  if (existsSync(fixtures.plugin) && existsSync(fixtures.host)) return fixtures;

  mkdirSync(CACHE, { recursive: true });
  const work = mkdtempSync(join(CACHE, 'build-'));
  try {
    const gopath = join(work, 'gopath');
    cpSync(SOURCES, join(gopath, 'src', 'toolportgo'), { recursive: true });
    const generated = join(work, 'generated');
    mkdirSync(generated);
    run('protoc', ['-I', PROTO, `--go_out=plugins=grpc,M${PLUGIN_PROTO}=toolportpb:${generated}`, join(PROTO, PLUGIN_PROTO)]);
    mkdirSync(join(gopath, 'src', 'toolportpb'), { recursive: true });
    renameSync(join(generated, PLUGIN_PROTO.replace(/\.proto$/, '.pb.go')), join(gopath, 'src', 'toolportpb', 'plugin.pb.go'));
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GO111MODULE: 'off',
      GOPATH: `${gopath}:${DEBIAN_GOPATH}`,
      GOCACHE: join(CACHE, 'go-build'),
      GOFLAGS: '',
    };
    const bin = join(work, 'bin');
    run('go', ['build', '-o', join(bin, 'toolport-go-plugin'), 'toolportgo/plugin'], env, gopath);
    run('go', ['build', '-o', join(bin, 'toolport-go-host'), 'toolportgo/host'], env, gopath);
    try {
      renameSync(bin, out);
    } catch (error) {
      // Another test file finished the same build first.
      if (!existsSync(fixtures.plugin)) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return fixtures;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, cwd = root): string {
  try {
    return execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') throw new Error(`${command} is not installed: ${NEEDED}`);
    throw new Error(`${command} ${args.join(' ')} failed:\n${failure.stderr ?? failure.message}`);
  }
}

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name), base) : [join(dir, entry.name).slice(base.length + 1)]))
    .sort();
}
