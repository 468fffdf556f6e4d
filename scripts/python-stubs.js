#!/usr/bin/env node
/**
 * Generates the Python gRPC stubs a Python plugin needs (Plugin, Host, go-plugin's
 * GRPCController and the health service) from proto/ with Debian's grpc_tools
 * (`apt-get install python3-grpc-tools`), into `<out>` (default: the Python example's
 * `stubs/`). The stubs are committed, so a Python plugin needs only python3-grpcio and
 * python3-protobuf to run. health.proto is compiled as `grpc_health/v1/`: its own path,
 * `grpc/health/v1/`, would shadow the `grpc` package itself.
 * Usage: node scripts/python-stubs.js [out-dir]
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const out = path.resolve(process.argv[2] || path.join(root, 'examples', 'plugins', 'greeter-py', 'stubs'));
const PROTOS = [
  ['toolport/plugin/v1/plugin.proto', 'toolport/plugin/v1/plugin.proto'],
  ['toolport/plugin/v1/host.proto', 'toolport/plugin/v1/host.proto'],
  ['plugin/grpc_controller.proto', 'plugin/grpc_controller.proto'],
  ['grpc/health/v1/health.proto', 'grpc_health/v1/health.proto'],
];

const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-pyproto-'));
try {
  for (const [from, to] of PROTOS) {
    fs.mkdirSync(path.dirname(path.join(tree, to)), { recursive: true });
    fs.copyFileSync(path.join(root, 'proto', from), path.join(tree, to));
  }
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const python = process.env.TOOLPORT_PYTHON || '/usr/bin/python3';
  execFileSync(python, ['-m', 'grpc_tools.protoc', `-I${tree}`, `--python_out=${out}`, `--grpc_python_out=${out}`, ...PROTOS.map(([, to]) => to)], {
    stdio: 'inherit',
  });
  process.stdout.write(`python stubs written to ${path.relative(root, out) || out}\n`);
} finally {
  fs.rmSync(tree, { recursive: true, force: true });
}
