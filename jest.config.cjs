// One jest preset for the whole monorepo (ESM mode, see STACK-NOTES.md).
const swc = (syntax, tsx) => [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax, tsx, decorators: false },
      target: 'es2022',
      transform: tsx ? { react: { runtime: 'automatic' } } : undefined,
    },
    module: { type: 'es6' },
  },
];
const common = {
  extensionsToTreatAsEsm: ['.ts', '.tsx'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 60000,
};
module.exports = {
  // Longest files first (durations of earlier runs), so both workers finish together.
  testSequencer: '<rootDir>/test/support/sequencer.cjs',
  projects: [
    {
      ...common,
      displayName: 'node',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': swc('typescript', false) },
      testMatch: [
        '<rootDir>/packages/*/src/**/*.test.ts',
        '<rootDir>/packages/*/test/**/*.test.ts',
        '<rootDir>/services/*/src/**/*.test.ts',
        '<rootDir>/services/*/test/**/*.test.ts',
        '<rootDir>/test/**/*.test.ts',
        '<rootDir>/web/e2e/**/*.test.ts',
        '<rootDir>/deploy/test/**/*.test.ts',
      ],
    },
    {
      ...common,
      displayName: 'web',
      testEnvironment: 'jsdom',
      transform: { '^.+\\.tsx?$': swc('typescript', true) },
      testMatch: ['<rootDir>/web/src/**/*.test.ts', '<rootDir>/web/src/**/*.test.tsx'],
      setupFilesAfterEnv: ['<rootDir>/web/src/test-setup.ts'],
      // Components keep their styles beside them in CSS modules (STYLE.md round 4).
      moduleNameMapper: {
        ...common.moduleNameMapper,
        '\\.module\\.css$': '<rootDir>/web/src/test-css-module.cjs',
      },
    },
  ],
};
