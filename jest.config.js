// Unit tests are pure and fast; integration tests share one real Temporal dev server and one
// MariaDB database started by test/helpers/global-setup.ts, so they run serially.
const transform = {
  '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
};
module.exports = {
  testTimeout: 60000,
  projects: [
    { displayName: 'unit', testEnvironment: 'node', transform, testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/test/replay/**/*.test.ts'] },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
    },
    {
      // Faults, races, hostile input, isolation and secrets against a stack of its own (private
      // MariaDB, Temporal, sandbox, workers); RELIABILITY_LONG=1 raises the counts (docs/reliability.md).
      displayName: 'reliability',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/reliability/**/*.test.ts'],
      setupFiles: ['<rootDir>/test/helpers/reliability/setup-env.ts'],
    },
    {
      // docker-compose.yml as local processes (`npm run topology`): replicas, kill -9 and a rolling
      // restart under load on the real Temporal server (docs/deployment.md); ports 19400-19499.
      displayName: 'topology',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/topology/**/*.test.ts'],
    },
  ],
};
