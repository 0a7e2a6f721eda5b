// `npm run test:unit`: the pure tests only (no PostgreSQL, Redis, Chromium or servers), in seconds.
// The unit tests beside the code (packages/*/src, services/*/src, web/src) and the root tests that
// only read the sources. `npm test` (jest.config.cjs) still runs everything.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest reads CommonJS configs
const base = require('./jest.config.cjs');

const PURE_ROOT_TESTS = [
  'marketplace-rules',
  'import-cycles',
  'lint-boundaries',
  'transition-effects',
  'service-readmes',
];

module.exports = {
  projects: base.projects.map((p) =>
    p.displayName === 'node'
      ? {
          ...p,
          displayName: 'unit',
          testMatch: [
            '<rootDir>/packages/*/src/**/*.test.ts',
            '<rootDir>/services/*/src/**/*.test.ts',
            ...PURE_ROOT_TESTS.map((name) => `<rootDir>/test/${name}.test.ts`),
          ],
        }
      : p,
  ),
};
