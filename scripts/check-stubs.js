#!/usr/bin/env node
'use strict';
// Fails when regenerating the gRPC stubs from proto/ would change the committed ones.
// Usage: node scripts/check-stubs.js [committed-stub-dir]
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const relative = 'src/adapters/grpc/generated';
const committed = path.resolve(process.argv[2] || path.join(root, relative));

function listFiles(dir, base = dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full, base) : [path.relative(base, full)];
  });
}

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-stubs-'));
try {
  execFileSync(path.join(root, 'node_modules', '.bin', 'buf'), ['generate', '-o', out], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const fresh = path.join(out, relative);
  const names = new Set([...listFiles(fresh), ...listFiles(committed)]);
  const differing = [...names].sort().filter((name) => {
    const a = path.join(fresh, name);
    const b = path.join(committed, name);
    return !fs.existsSync(a) || !fs.existsSync(b) || !fs.readFileSync(a).equals(fs.readFileSync(b));
  });
  if (differing.length > 0) {
    process.stderr.write(`gRPC stubs are out of date with proto/ (run npm run proto:gen): ${differing.join(', ')}\n`);
    process.exit(1);
  }
  process.stdout.write(`gRPC stubs match proto/ (${names.size} files)\n`);
} finally {
  fs.rmSync(out, { recursive: true, force: true });
}
