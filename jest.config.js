/** Two projects so `npm test` runs the fast suites first and the real-process suites after. */
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };
const common = {
  testEnvironment: 'node',
  transform,
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFiles: ['reflect-metadata'],
  // Per project, so `--selectProjects unit` and `e2e` each set up (and remove) their own.
  globalSetup: '<rootDir>/test/support/postgres/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/postgres/global-teardown.ts',
};
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['\\.e2e\\.test\\.ts$', '/node_modules/'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e.test.ts'],
    },
  ],
};
