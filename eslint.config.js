import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * Boundaries (issue #18 item 7): a service never imports another service (they talk over HTTP and
 * events), a web feature never imports another feature, and the shared web folders (lib,
 * components) never import a feature (web/src/app is the router and may); inside a service only
 * main.ts imports app.ts. One block per file
 * group, because a later no-restricted-imports setting replaces an earlier one for the same file.
 * test/lint-boundaries.test.ts proves each rule fails on a deliberate bad import.
 */
const SERVICES = ['admin', 'gateway', 'identity', 'jobs', 'notifications', 'payments'];

const SERVICE_MESSAGE = 'A service must not import another service: call it over HTTP (clients/) or react to its events.';
const APP_MESSAGE = 'Only main.ts imports app.ts: take the Deps type from deps.ts (no import circles).';
/** Still importing IdentityDeps from app.ts (identity's auth files are being changed by #15): move to deps.ts, then drop. */

const serviceBoundaries = SERVICES.flatMap((service) => {
  const others = SERVICES.filter((other) => other !== service);
  const patterns = [
    { group: others.flatMap((other) => [`@htm/${other}`, `@htm/${other}/*`]), message: SERVICE_MESSAGE },
    { regex: `(^|/)(services/)?(${others.join('|')})/(src|test)(/|$)`, message: SERVICE_MESSAGE },
  ];
  return [
    { files: [`services/${service}/**/*.{ts,tsx,js,mjs}`], rules: { 'no-restricted-imports': ['error', { patterns }] } },
    {
      files: [`services/${service}/src/**/*.ts`],
      ignores: [`services/${service}/src/main.ts`],
      rules: { 'no-restricted-imports': ['error', { patterns: [...patterns, { regex: '^\\.{1,2}/(\\.\\./)*app(\\.js)?$', message: APP_MESSAGE }] }] },
    },
  ];
});

const FEATURE_MESSAGE = 'A web feature must not import another feature: move what they share to web/src/lib or web/src/components.';
/** web/src/features/<f>/<depth folders>/file: exactly depth+1 "../" lands in web/src/features. */
const featureBoundaries = [0, 1, 2, 3, 4].map((depth) => ({
  files: [`web/src/features/*/${'*/'.repeat(depth)}*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': ['error', {
      patterns: [
        { regex: `^(\\.\\./){${depth + 1}}(?!\\.\\./)`, message: FEATURE_MESSAGE },
        { regex: '(^|/)features(/|$)', message: FEATURE_MESSAGE },
      ],
    }],
  },
}));

const sharedWebBoundaries = {
  files: ['web/src/lib/**/*.{ts,tsx}', 'web/src/components/**/*.{ts,tsx}'],
  rules: {
    'no-restricted-imports': ['error', {
      patterns: [{ regex: '(^|/)features(/|$)', message: 'web/src/lib and web/src/components are shared: they must not import a feature (only web/src/app, the router, does).' }],
    }],
  },
};

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', 'test-results/**', '**/migrations/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  ...serviceBoundaries,
  ...featureBoundaries,
  sharedWebBoundaries,
);
