// Lint rules for the whole tree (`npm run lint`, run by `npm test`): typescript-eslint's
// recommended set, with formatting left to Prettier.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '**/dist/**',
      'coverage/**',
      '**/generated/**',
      'packages/plugin-sdk/proto/**',
      'examples/plugins/greeter-py/**',
      'templates/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // A `let` that a callback made before its one assignment reads is not a constant.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests and the bench read answers of the HTTP API and MCP as untyped JSON.
    files: ['test/**', 'bench/**', 'packages/*/test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Node scripts and fixtures written as CommonJS.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
