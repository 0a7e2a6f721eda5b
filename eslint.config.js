import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import jsxA11y from 'eslint-plugin-jsx-a11y';

/**
 * Boundaries (issue #18 item 7): a service never imports another service (they talk over HTTP and
 * events), a web feature never imports another feature, and the shared web folders (lib,
 * components) never import a feature (web/src/app is the router and may); inside a service only
 * main.ts imports app.ts; a service's domain/ imports no drizzle-orm, express, stripe, pg, ioredis,
 * bullmq or http/ (it may call its db/*.repository.ts); the bench and the root tests import a
 * service only through its entry or its ./testing (package exports allow nothing else). One block per file
 * group, because a later no-restricted-imports setting replaces an earlier one for the same file.
 * test/lint-boundaries.test.ts proves each rule fails on a deliberate bad import.
 */
const SERVICES = ['admin', 'analytics', 'gateway', 'identity', 'jobs', 'notifications', 'payments'];

const SERVICE_MESSAGE =
  'A service must not import another service: call it over HTTP (clients/) or react to its events.';
const APP_MESSAGE =
  'Only main.ts imports app.ts: take the Deps type from deps.ts (no import circles).';
/** Still importing IdentityDeps from app.ts (identity's auth files are being changed by #15): move to deps.ts, then drop. */

const DOMAIN_MESSAGE =
  'Domain code is pure rules and use cases: no drizzle-orm, express, provider SDK, driver or queue here. SQL goes in db/*.repository.ts, HTTP in http/, providers behind providers/.';
const DOMAIN_HTTP_MESSAGE =
  'Domain code must not import http/: the route parses the request and calls the use case, never the other way round.';
/** Packages a domain file must not import (their subpaths included). */
const DOMAIN_FORBIDDEN = [
  'drizzle-orm',
  'express',
  'stripe',
  'sharp',
  'pdfkit',
  '@octokit/rest',
  'jira.js',
  'standardwebhooks',
  'pg',
  'ioredis',
  'bullmq',
];
const domainPatterns = [
  { group: DOMAIN_FORBIDDEN.flatMap((name) => [name, `${name}/*`]), message: DOMAIN_MESSAGE },
  { regex: '^(\\.\\./)+http(/|$)', message: DOMAIN_HTTP_MESSAGE },
];
const serviceBoundaries = SERVICES.flatMap((service) => {
  const others = SERVICES.filter((other) => other !== service);
  const patterns = [
    {
      group: others.flatMap((other) => [`@htm/${other}`, `@htm/${other}/*`]),
      message: SERVICE_MESSAGE,
    },
    { regex: `(^|/)(services/)?(${others.join('|')})/(src|test)(/|$)`, message: SERVICE_MESSAGE },
  ];
  const srcPatterns = [
    ...patterns,
    { regex: '^\\.{1,2}/(\\.\\./)*app(\\.js)?$', message: APP_MESSAGE },
  ];
  return [
    {
      files: [`services/${service}/**/*.{ts,tsx,js,mjs}`],
      rules: { 'no-restricted-imports': ['error', { patterns }] },
    },
    {
      files: [`services/${service}/src/**/*.ts`],
      ignores: [`services/${service}/src/main.ts`],
      rules: { 'no-restricted-imports': ['error', { patterns: srcPatterns }] },
    },
    {
      // Repeats the rules above: a later no-restricted-imports setting replaces the earlier one.
      files: [`services/${service}/src/domain/**/*.ts`],
      rules: {
        'no-restricted-imports': ['error', { patterns: [...srcPatterns, ...domainPatterns] }],
      },
    },
  ];
});

const FEATURE_MESSAGE =
  'A web feature must not import another feature: move what they share to web/src/lib or web/src/components.';
/** web/src/features/<f>/<depth folders>/file: exactly depth+1 "../" lands in web/src/features. */
const featureBoundaries = [0, 1, 2, 3, 4].map((depth) => ({
  files: [`web/src/features/*/${'*/'.repeat(depth)}*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { regex: `^(\\.\\./){${depth + 1}}(?!\\.\\./)`, message: FEATURE_MESSAGE },
          { regex: '(^|/)features(/|$)', message: FEATURE_MESSAGE },
        ],
      },
    ],
  },
}));

const sharedWebBoundaries = {
  files: ['web/src/lib/**/*.{ts,tsx}', 'web/src/components/**/*.{ts,tsx}'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: '(^|/)features(/|$)',
            message:
              'web/src/lib and web/src/components are shared: they must not import a feature (only web/src/app, the router, does).',
          },
        ],
      },
    ],
  },
};

/** The bench and the root tests use each service as its users do: its entry and its ./testing. */
const PUBLIC_ENTRY_MESSAGE =
  'Import a service through its entry (@htm/<service>) or @htm/<service>/testing: re-export what you need from its src/index.ts or src/testing.ts.';
const publicEntries = {
  files: ['bench/**/*.{ts,mjs}', 'test/**/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { regex: `^@htm/(${SERVICES.join('|')})/(?!testing$)`, message: PUBLIC_ENTRY_MESSAGE },
          {
            regex: `(^|/)services/(${SERVICES.join('|')})/(src|test)(/|$)`,
            message: PUBLIC_ENTRY_MESSAGE,
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.data/**',
      'test-results/**',
      '**/migrations/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  {
    // The web app: the rules of hooks (and the React Compiler's checks) and accessibility of JSX.
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks, 'jsx-a11y': jsxA11y },
    languageOptions: { parserOptions: { ecmaFeatures: { jsx: true } } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...jsxA11y.flatConfigs.recommended.rules,
      // The React Compiler's checks warn for now: the app keeps the latest props in refs for its
      // effects (drafts, live channel, modal) and sets state at the start of some effects; moving
      // those to useEffectEvent / derived state is its own change (issue #29, item 7).
      'react-hooks/refs': 'warn',
      'react-hooks/set-state-in-effect': 'warn',
      'react-hooks/purity': 'warn',
      // A label wrapping its input with the text a little deeper (<span><strong>) is associated.
      'jsx-a11y/label-has-associated-control': ['error', { assert: 'either', depth: 3 }],
    },
  },
  ...serviceBoundaries,
  ...featureBoundaries,
  sharedWebBoundaries,
  publicEntries,
);
