/**
 * Bundles each service entry point with esbuild into dist/<service>/ (ESM, Node 20+), for the
 * container images (see Dockerfile and docs/operations.md).
 *
 *   npm run build:services                 # every service (+ the jobs worker)
 *   npm run build:services -- admin jobs   # only these
 *
 * What is bundled: the service's own code and the workspace packages it imports (@htm/*,
 * TypeScript sources). npm packages stay external and are installed as ordinary production
 * dependencies next to the bundle: bundling them breaks packages that read their own files at
 * run time (redoc's standalone bundle, PGlite's wasm, sharp's binaries) or patch another package's
 * prototypes (zod-to-openapi on zod), and gains little on a server.
 *
 * Output per service:
 *   dist/<service>/main.js          the entry (jobs also has worker.js, the BullMQ timer worker)
 *   dist/<service>/otel-register.js OpenTelemetry (`node --import ./otel-register.js main.js`)
 *   dist/<service>/db/migrations/   drizzle migrations, next to the entry, so the services'
 *                                   `new URL('./db/migrations', import.meta.url)` resolves here
 *   dist/<service>/package.json     {"type":"module"} + exactly the npm packages the bundle
 *                                   imports (versions pinned to the ones installed here), to be
 *                                   installed with `npm install --omit=dev` inside that folder
 *
 * Left out of package.json (NOT_INSTALLED): packages loaded only in modes production does not
 * use (PGlite: only without DATABASE_URL, which production refuses; pg-native: only on request;
 * msgpackr-extract: an optional speed-up). They stay dynamic imports, so a missing one only
 * matters if that mode is used.
 */
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { builtinModules } from 'node:module';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface ServiceTarget {
  /** Folder under services/ and under dist/. */
  service: string;
  /** Output name (without .js) → entry file relative to the repo root. */
  entries: Record<string, string>;
}

export const TARGETS: ServiceTarget[] = [
  { service: 'gateway', entries: { main: 'services/gateway/src/main.ts' } },
  { service: 'identity', entries: { main: 'services/identity/src/main.ts' } },
  {
    service: 'jobs',
    entries: { main: 'services/jobs/src/main.ts', worker: 'services/jobs/src/worker-main.ts' },
  },
  { service: 'payments', entries: { main: 'services/payments/src/main.ts' } },
  { service: 'admin', entries: { main: 'services/admin/src/main.ts' } },
  { service: 'notifications', entries: { main: 'services/notifications/src/main.ts' } },
  // rebuild.js: `node rebuild.js` drops the projection and replays the streams (npm run analytics:rebuild).
  {
    service: 'analytics',
    entries: {
      main: 'services/analytics/src/main.ts',
      rebuild: 'services/analytics/src/rebuild-cli.ts',
    },
  },
  // lighthouse-worker.js: Lighthouse's child process, started by the check once per measured size.
  {
    service: 'site-check',
    entries: {
      main: 'services/site-check/src/main.ts',
      'lighthouse-worker': 'services/site-check/src/providers/lighthouse-worker.ts',
    },
  },
];

/** External packages that are loaded only on demand and are deliberately not installed in images. */
export const NOT_INSTALLED = new Set([
  '@electric-sql/pglite',
  'pg-native',
  'msgpackr-extract',
  'cpu-features',
]);
/** Packages a service reads files of at run time without importing them (require.resolve). */
export const RUNTIME_FILE_PACKAGES: Record<string, string[]> = { gateway: ['redoc'] };
/** Loaded by name, not imported, in every service: otel-register.js's ESM loader hook. */
const EVERY_SERVICE_RUNTIME_PACKAGES = ['import-in-the-middle'];
/** `node --import ./otel-register.js main.js`: the OpenTelemetry SDK before the service's modules. */
const OTEL_REGISTER = 'packages/service-kit/src/otel-register.ts';

// ESM output still contains CommonJS dependencies that call require() or read __dirname.
const BANNER = [
  "import { createRequire as __htmCreateRequire } from 'node:module';",
  "import { fileURLToPath as __htmFileURLToPath } from 'node:url';",
  "import { dirname as __htmDirname } from 'node:path';",
  'const require = __htmCreateRequire(import.meta.url);',
  'const __filename = __htmFileURLToPath(import.meta.url);',
  'const __dirname = __htmDirname(__filename);',
].join('\n');

/**
 * Every service's main.ts starts itself when `import.meta.url` is the script node was given. In a
 * bundle every module shares the bundle's URL, so a main.ts imported by another entry (the jobs
 * worker imports the API's main.ts for its migrations folder) would start too. This plugin
 * disables that guard in every file except the entry being built.
 */
function onlyEntryRunsAsMain(entryFiles: string[]): Plugin {
  const entries = new Set(entryFiles.map((f) => path.resolve(root, f)));
  return {
    name: 'only-entry-runs-as-main',
    setup(b) {
      b.onLoad({ filter: /[\\/]services[\\/][^\\/]+[\\/]src[\\/].*\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (entries.has(args.path) || !text.includes('process.argv[1]')) return undefined;
        return {
          contents: text.replaceAll('process.argv[1]', '(undefined as string | undefined)'),
          loader: 'ts',
        };
      });
    },
  };
}

/** Every bare import except the workspace packages (@htm/*, bundled) and Node built-ins is external. */
const npmPackagesExternal: Plugin = {
  name: 'npm-packages-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@htm/') || args.path.startsWith('node:')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** Version of an installed package as the service resolves it (its own node_modules first). */
function packageVersion(name: string, service: string): string {
  for (const dir of [path.join(root, 'services', service), root]) {
    const pj = path.join(dir, 'node_modules', name, 'package.json');
    if (existsSync(pj))
      return (JSON.parse(readFileSync(pj, 'utf8')) as { version: string }).version;
  }
  throw new Error(`${service}: package ${name} is imported but not installed`);
}

/** Bare package name of an import path ('sharp', '@scope/pkg/sub' → '@scope/pkg'). */
export function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const BUILTINS = new Set(builtinModules);

/** npm packages imported anywhere in the output (static, dynamic or require), from the metafile. */
function importedPackages(meta: Metafile): string[] {
  const found = new Set<string>();
  for (const out of Object.values(meta.outputs)) {
    for (const imp of out.imports) {
      if (!imp.external || imp.path.startsWith('node:') || imp.path.startsWith('.')) continue;
      const pkg = packageOf(imp.path);
      if (!BUILTINS.has(pkg)) found.add(pkg);
    }
  }
  return [...found].sort();
}

/** What every bundle of a service is built with: one ESM file for Node 20, npm packages left external. */
function bundleOptions(outdir: string) {
  return {
    absWorkingDir: root,
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    minifySyntax: true,
    banner: { js: BANNER },
    metafile: true,
    logLevel: 'warning',
  } satisfies BuildOptions;
}

export async function buildService(
  t: ServiceTarget,
  opts: { outRoot?: string; log?: (s: string) => void } = {},
): Promise<string> {
  const log = opts.log ?? console.log;
  const outdir = path.join(opts.outRoot ?? path.join(root, 'dist'), t.service);
  for (const [name, file] of Object.entries(t.entries)) {
    if (!existsSync(path.join(root, file)))
      throw new Error(`${t.service}: entry ${file} (${name}) does not exist`);
  }
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  // One build per entry, one file each: an entry's own module must stay in its own output file,
  // or its `import.meta.url === process.argv[1]` start guard would look at a shared chunk's URL.
  const outputs: Metafile['outputs'] = {};
  for (const [name, file] of Object.entries(t.entries)) {
    const result = await build({
      ...bundleOptions(outdir),
      entryPoints: { [name]: file },
      plugins: [npmPackagesExternal, onlyEntryRunsAsMain([file])],
    });
    Object.assign(outputs, result.metafile.outputs);
  }
  // Its own file (loaded with --import before the entry), named after the service for its spans.
  const otel = await build({
    ...bundleOptions(outdir),
    entryPoints: { 'otel-register': OTEL_REGISTER },
    define: { 'process.env.HTM_SERVICE_NAME': JSON.stringify(t.service) },
    plugins: [npmPackagesExternal],
  });
  Object.assign(outputs, otel.metafile.outputs);
  const result = { metafile: { inputs: {}, outputs } as Metafile };
  const migrations = path.join(root, 'services', t.service, 'src', 'db', 'migrations');
  if (existsSync(migrations))
    cpSync(migrations, path.join(outdir, 'db', 'migrations'), { recursive: true });
  const externals = [
    ...new Set([
      ...importedPackages(result.metafile),
      ...(RUNTIME_FILE_PACKAGES[t.service] ?? []),
      ...EVERY_SERVICE_RUNTIME_PACKAGES,
    ]),
  ]
    .filter((p) => !NOT_INSTALLED.has(p))
    .sort();
  const pkg = {
    name: `@htm/${t.service}-bundle`,
    private: true,
    type: 'module',
    engines: { node: '>=20.11' },
    dependencies: Object.fromEntries(externals.map((p) => [p, packageVersion(p, t.service)])),
  };
  writeFileSync(path.join(outdir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const bytes = Object.entries(result.metafile.outputs)
    .filter(([f]) => f.endsWith('.js'))
    .reduce((n, [, o]) => n + o.bytes, 0);
  log(
    `built ${path.relative(root, outdir)}: ${Object.keys(t.entries).join(', ')} (${(bytes / 1024).toFixed(0)} KiB JS; ${externals.length} npm dependencies)`,
  );
  return outdir;
}

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const unknown = wanted.filter((w) => !TARGETS.some((t) => t.service === w));
  if (unknown.length) {
    console.error(
      `unknown service(s): ${unknown.join(', ')}; known: ${TARGETS.map((t) => t.service).join(', ')}`,
    );
    process.exit(2);
  }
  const targets = wanted.length ? TARGETS.filter((t) => wanted.includes(t.service)) : TARGETS;
  for (const t of targets) await buildService(t);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
