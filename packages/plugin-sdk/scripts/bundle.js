#!/usr/bin/env node
'use strict';
/**
 * Replaces dist/index.js (tsc's output) by one bundle holding the SDK and its gRPC runtime
 * (@grpc/grpc-js, @bufbuild/protobuf), so the package has no runtime dependencies: its
 * tarball installs offline, and an author's project needs nothing from a registry for it.
 * dist/protocol.js stays tsc's output: the host uses it with its own @grpc/grpc-js, whose
 * classes it must share. @opentelemetry/api stays outside: it is an optional peer the SDK
 * requires lazily from the plugin, so a plugin that traces shares its own copy and provider.
 */
const path = require('node:path');
const esbuild = require('esbuild');

const pkg = path.resolve(__dirname, '..');
esbuild.buildSync({
  entryPoints: [path.join(pkg, 'src', 'index.ts')],
  outfile: path.join(pkg, 'dist', 'index.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  legalComments: 'eof',
  external: ['@opentelemetry/api'],
  logLevel: 'warning',
});
