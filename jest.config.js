// Unit specs sit beside the code (src/**/*.spec.ts) and under test/unit; end-to-end and integration
// specs under test/ run against real nats-server, clickhouse-server and Chromium started by
// test/harness/global-setup.ts.
const tsJest = ['ts-jest', { tsconfig: 'test/tsconfig.json', diagnostics: { warnOnly: false } }];
module.exports = {
  // Shards of about equal running time (scripts/test.sh runs the end-to-end specs in two at once).
  testSequencer: '<rootDir>/test/harness/sequencer.mjs',
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': tsJest },
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/unit/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': tsJest },
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts', '<rootDir>/test/integration/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/test/harness/global-setup.ts',
      globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/harness/jest-setup.ts'],
      slowTestThreshold: 30,
    },
  ],
};
