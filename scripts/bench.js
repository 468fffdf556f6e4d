'use strict';
/**
 * `npm run bench`: builds a private copy of the app (src/ transpiled by esbuild, bin/,
 * package.json) under node_modules/.cache/toolport-bench, so a concurrent `npm run build` of
 * dist/ cannot break a run and the run always measures the current src/. Then bundles
 * bench/*.ts with esbuild and runs the bench. Extra arguments go to the bench
 * (`npm run bench -- --only=hops`); BENCH_NODE_ARGS go to node (e.g. `--cpu-prof`).
 */
const { buildSync } = require('esbuild');
const { execFileSync } = require('node:child_process');
const { copyFileSync, mkdirSync, readdirSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const cache = join(root, 'node_modules', '.cache', 'toolport-bench');
const app = join(cache, 'app');

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

rmSync(app, { recursive: true, force: true });
mkdirSync(join(app, 'bin'), { recursive: true });
copyFileSync(join(root, 'package.json'), join(app, 'package.json'));
copyFileSync(join(root, 'bin', 'toolport'), join(app, 'bin', 'toolport'));
const transpile = {
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // As tsc emits for CommonJS: a dynamic import() becomes a require().
  supported: { 'dynamic-import': false },
  logLevel: 'error',
};
buildSync({ ...transpile, entryPoints: sources(join(root, 'src')), outbase: join(root, 'src'), outdir: join(app, 'dist') });
// The standalone agentctl file, as `npm run build` makes it (the lean part runs it alone).
require('./build-agentctl').buildAgentctl(join(app, 'dist', 'agentctl.js'));

/**
 * The build before tracing, for the tracing part's "off costs nothing" side: `main` while it
 * has no Tracer port (so only this branch's change differs), else the parent of the commit
 * that added it. Skipped with a note when git cannot give one.
 */
function buildBaseline() {
  const dir = join(cache, 'baseline');
  rmSync(dir, { recursive: true, force: true });
  try {
    const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const hasTracer = (ref) => git('ls-tree', '--name-only', ref, 'src/application/ports/tracer.ts') !== '';
    // BENCH_BASELINE_REF: another build to pair with instead (the `paired` part's "before").
    let commit = git('rev-parse', process.env.BENCH_BASELINE_REF ?? 'main');
    if (process.env.BENCH_BASELINE_REF === undefined && hasTracer(commit)) {
      const added = git('log', '--diff-filter=A', '--format=%H', '--', 'src/application/ports/tracer.ts').split('\n').pop();
      commit = git('rev-parse', `${added}^`);
    }
    mkdirSync(join(dir, 'tree'), { recursive: true });
    execFileSync('sh', ['-c', `git archive ${commit} src bin package.json | tar -x -C "${join(dir, 'tree')}"`], { cwd: root, stdio: 'ignore' });
    const tree = join(dir, 'tree');
    mkdirSync(join(dir, 'app', 'bin'), { recursive: true });
    copyFileSync(join(tree, 'package.json'), join(dir, 'app', 'package.json'));
    copyFileSync(join(tree, 'bin', 'toolport'), join(dir, 'app', 'bin', 'toolport'));
    buildSync({ ...transpile, entryPoints: sources(join(tree, 'src')), outbase: join(tree, 'src'), outdir: join(dir, 'app', 'dist') });
    return { TOOLPORT_BENCH_BASELINE_APP: join(dir, 'app'), TOOLPORT_BENCH_BASELINE_COMMIT: commit };
  } catch (error) {
    process.stderr.write(`bench: no build before tracing to compare with (${error.message})\n`);
    return {};
  }
}
const baseline = buildBaseline();

const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', packages: 'external', logLevel: 'error' };
buildSync({ ...common, entryPoints: [join(root, 'bench', 'main.ts')], outfile: join(cache, 'main.js') });
buildSync({ ...common, entryPoints: [join(root, 'bench', 'floor-servers.ts')], outfile: join(cache, 'floor-servers.js') });
buildSync({ ...common, entryPoints: [join(root, 'bench', 'link-clients.ts')], outfile: join(cache, 'link-clients.js') });
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
try {
  execFileSync(process.execPath, [...nodeArgs, join(cache, 'main.js'), ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TOOLPORT_BENCH_APP: app, TOOLPORT_BENCH_REPO: root, ...baseline },
  });
} catch (error) {
  process.exit(typeof error.status === 'number' ? error.status : 1);
}
