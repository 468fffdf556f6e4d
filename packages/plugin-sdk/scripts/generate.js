#!/usr/bin/env node
'use strict';
/**
 * Makes what the SDK package needs from the repository's proto/: the TypeScript gRPC stubs in
 * src/generated/ (buf with ../buf.gen.yaml) and a copy of the protos it ships in proto/, for
 * authors in other languages. `--check` changes nothing and fails when either is missing or
 * differs from what proto/ gives today (npm run proto:check at the root runs it).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const pkg = path.resolve(__dirname, '..');
const repo = path.resolve(pkg, '..', '..');
/** Every proto a plugin needs: its service, the Host API, go-plugin's controller and the health service. */
const PROTOS = ['toolport/plugin/v1/plugin.proto', 'toolport/plugin/v1/host.proto', 'plugin/grpc_controller.proto', 'grpc/health/v1/health.proto'];

function listFiles(dir, base = dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full, base) : [path.relative(base, full)];
  });
}

/** Writes the stubs and protos under `out` (laid out as the package is). */
function generate(out) {
  const buf = path.join(repo, 'node_modules', '.bin', 'buf');
  const args = ['generate', '--template', path.join(pkg, 'buf.gen.yaml'), '-o', out, ...PROTOS.flatMap((p) => ['--path', path.join('proto', p)])];
  execFileSync(buf, args, { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
  for (const proto of PROTOS) {
    const target = path.join(out, 'packages', 'plugin-sdk', 'proto', proto);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(repo, 'proto', proto), target);
  }
  return path.join(out, 'packages', 'plugin-sdk');
}

function differing(fresh, current) {
  const names = new Set([...listFiles(fresh), ...listFiles(current)]);
  return [...names].sort().filter((name) => {
    const a = path.join(fresh, name);
    const b = path.join(current, name);
    return !fs.existsSync(a) || !fs.existsSync(b) || !fs.readFileSync(a).equals(fs.readFileSync(b));
  });
}

const check = process.argv.includes('--check');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-sdk-gen-'));
try {
  const fresh = generate(tmp);
  const changed = ['src/generated', 'proto'].flatMap((dir) => differing(path.join(fresh, dir), path.join(pkg, dir)).map((name) => `${dir}/${name}`));
  if (check) {
    if (changed.length > 0) {
      process.stderr.write(`the SDK's stubs or protos differ from proto/ (run npm run build): ${changed.join(', ')}\n`);
      process.exit(1);
    }
    process.stdout.write("the SDK's stubs and protos match proto/\n");
  } else {
    for (const dir of ['src/generated', 'proto']) {
      fs.rmSync(path.join(pkg, dir), { recursive: true, force: true });
      fs.cpSync(path.join(fresh, dir), path.join(pkg, dir), { recursive: true });
    }
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
