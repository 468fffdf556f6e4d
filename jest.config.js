/** Two projects so `npm test` runs the fast suites first and the real-process suites after. */
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };
const common = {
  testEnvironment: 'node',
  transform,
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFiles: ['reflect-metadata'],
  // The SDK package's source, as tsconfig.json's paths say: tests never need its dist/ built.
  moduleNameMapper: {
    '^@toolport/plugin-sdk$': '<rootDir>/packages/plugin-sdk/src/index.ts',
    '^@toolport/plugin-sdk/protocol$': '<rootDir>/packages/plugin-sdk/src/protocol.ts',
  },
  // Per project, so `--selectProjects unit` and `e2e` each set up (and remove) their own.
  globalSetup: '<rootDir>/test/support/postgres/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/postgres/global-teardown.ts',
};
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/packages/*/test/**/*.test.ts'],
      testPathIgnorePatterns: ['\\.e2e\\.test\\.ts$', '/node_modules/'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e.test.ts', '<rootDir>/packages/*/test/**/*.e2e.test.ts'],
    },
  ],
};
