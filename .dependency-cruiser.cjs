/**
 * The layer arrows of docs/architecture.md. Each rule is one forbidden arrow; `npm run lint:layers`
 * fails on any of them, and test/architecture proves it does by planting a violation.
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports only itself (and node:crypto, for the SHA-256 its rules name)',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/domain/', '^crypto$', '^node:crypto$'] },
    },
    {
      name: 'domain-hashes-in-one-file',
      comment: 'the domain takes only hashes from node:crypto, all of them in src/domain/tokens.ts',
      severity: 'error',
      from: { path: '^src/domain/', pathNot: '^src/domain/tokens\\.ts$' },
      to: { path: ['^crypto$', '^node:crypto$'] },
    },
    {
      name: 'application-depends-on-domain-only',
      comment: 'src/application imports only itself and the domain (and the API answer types, see api-is-types-only)',
      severity: 'error',
      from: { path: '^src/application/' },
      to: { pathNot: ['^src/application/', '^src/domain/', '^src/api/'] },
    },
    {
      name: 'transports-stay-in-adapters',
      comment: 'no transport package (ws, express, gRPC, MCP, HTTP clients) in src/domain or src/application',
      severity: 'error',
      from: { path: '^src/(domain|application)/' },
      to: {
        path: [
          'node_modules/(ws|express|@grpc|@modelcontextprotocol|pg|better-sqlite3|prom-client)/',
          '^(http|https|http2|net|tls|dgram|child_process)$',
          '^node:(http|https|http2|net|tls|dgram|child_process)$',
        ],
      },
    },
    {
      name: 'adapters-are-independent',
      comment: 'an adapter folder never imports another adapter folder, except the shared helpers',
      severity: 'error',
      from: { path: '^src/adapters/([^/]+)/' },
      to: { path: '^src/adapters/', pathNot: ['^src/adapters/$1/', '^src/adapters/shared/'] },
    },
    {
      name: 'shared-adapter-helpers-stand-alone',
      comment: 'src/adapters/shared (data-dir files, pid liveness, bearer parsing) imports no other adapter folder',
      severity: 'error',
      from: { path: '^src/adapters/shared/' },
      to: { path: '^src/adapters/', pathNot: ['^src/adapters/shared/'] },
    },
    {
      name: 'adapters-do-not-reach-composition',
      severity: 'error',
      from: { path: '^src/(domain|application|adapters)/' },
      to: { path: '^src/composition/' },
    },
    {
      name: 'only-composition-imports-inversify',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/composition/' },
      to: { path: 'node_modules/(inversify|@inversifyjs)/' },
    },
    {
      name: 'console-stands-alone',
      comment: 'src/console is a browser program, a client of the HTTP API: it imports only itself, preact, htm, eventsource-parser and the API answer types',
      severity: 'error',
      from: { path: '^src/console/' },
      to: { pathNot: ['^src/console/', 'node_modules/(preact|htm|eventsource-parser)/', '^src/api/'] },
    },
    {
      name: 'nothing-imports-the-console',
      comment: 'the console is built apart (scripts/build-console.js) and served as files',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/console/' },
      to: { path: '^src/console/' },
    },
    {
      name: 'api-stands-alone',
      comment: 'src/api declares the HTTP API answers once: it imports only itself and types of the domain, so the console and every layer can read it',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { pathNot: ['^src/api/', '^src/domain/'] },
    },
    {
      name: 'api-takes-types-of-the-domain',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: '^src/domain/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'api-is-types-only',
      comment: 'the application (whose views are those answers) and the console (built apart) take only types from src/api',
      severity: 'error',
      from: { path: '^src/(application|console)/' },
      to: { path: '^src/api/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'plugin-sdk-stands-alone',
      comment: 'packages/plugin-sdk ships to plugin authors on its own: it imports nothing from src/ (its stubs are generated into it)',
      severity: 'error',
      from: { path: '^packages/plugin-sdk/' },
      to: { path: '^src/' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(src/adapters/grpc|packages/plugin-sdk/src)/generated/' },
    // Resolve package subpath exports (`@bufbuild/protobuf/wire`, `@modelcontextprotocol/sdk/…`).
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['require', 'node', 'default'],
      mainFields: ['main', 'types'],
    },
  },
};
