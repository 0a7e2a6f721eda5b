/**
 * `npm run bench:web`: the web app's two budgets, measured on what users get.
 *
 * 1. Landing page initial JavaScript (gzip, zlib level 9): builds the real app
 *    (`npm run build -w web`), reads the page the gateway serves for `/` (web/dist/landing.html,
 *    the prerendered landing page; web/dist/index.html when the build made none) and sums its
 *    <script type=module> entry, its modulepreload links and every chunk they import statically
 *    (what loads before any lazy chunk). The app chunk the entry imports when the page needs it
 *    (web/src/app/load-when-needed.ts: the visitor's first act, a form coming within a screen,
 *    or 4 s after load untouched) is not in this figure; the JS fetched during Lighthouse's load
 *    trace is reported from its network records beside it. Compared with a minimal React + Redux Toolkit +
 *    RTK Query app (a counter and one createApi endpoint) written to bench/.tmp/minimal-app and
 *    built in the same run with the repo's own vite + @vitejs/plugin-react (NODE_ENV=production).
 *    Target: ratio ≤ 0.8.
 *    BENCH_WEB_SIZE_ONLY=1: only this figure (no Lighthouse, RESULTS.md untouched).
 * 2. Lighthouse (performance, accessibility) of the landing page served by `npm start` (gateway,
 *    CSP, headers exactly as shipped) on a free port with a fresh DATA_DIR, in Debian's Chromium.
 *    Targets: desktop performance and accessibility 1.00; mobile performance ≥ 0.98 with LCP ≤ 1.5 s,
 *    accessibility 1.00; CLS 0 on both. BENCH_WEB_PRESET=desktop (default) | mobile | both.
 *
 *    What-if (not a target, only with BENCH_WEB_WHATIF=1): the same Lighthouse run through a local
 *    proxy that gzips text responses, to show what compression in front of the gateway would give.
 *
 * Writes bench/web/RESULTS.md (full Lighthouse reports: bench/.tmp/lighthouse-<preset>.json) and exits 1 when a target is missed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createGzip, gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { desktopConfig } from 'lighthouse';
import { CHROMIUM_ARGS, startProduct } from '../../web/e2e/support/product.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const webDir = path.join(root, 'web');
const minimalDir = path.join(root, 'bench', '.tmp', 'minimal-app');
/** Issue #22's targets: landing initial JS ≤ 0.8× the minimal app; per Lighthouse preset below. */
const SIZE_TARGET = 0.8;
const TARGETS: Record<
  Preset,
  { performance: number; accessibility: number; lcpMs?: number; cls: number }
> = {
  desktop: { performance: 1, accessibility: 1, cls: 0 },
  mobile: { performance: 0.98, accessibility: 1, lcpMs: 1500, cls: 0 },
};
const started = Date.now();

const step = (msg: string) =>
  process.stdout.write(
    `[bench:web ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${msg}\n`,
  );
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): void {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout}\n${r.stderr}\n`);
    throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd} (exit ${r.status})`);
  }
}

// ---------------------------------------------------------------- initial JS of a built app

/** Static `import`/`export … from` specifiers of a built ES module (dynamic import() excluded). */
function staticImports(code: string): string[] {
  const re = /(?<![\w$.])(?:import|export)\s*(?:[\w$*{}\s,]+?\s*from\s*)?["']([^"']+\.js)["']/g;
  return [...code.matchAll(re)].map((m) => m[1]);
}

interface Chunk {
  file: string;
  raw: number;
  gzip: number;
}

/** Entry script + modulepreload links of `page` (in dist), closed over static imports. */
function initialJs(dist: string, page = 'index.html'): Chunk[] {
  const html = readFileSync(path.join(dist, page), 'utf8');
  const urls = [
    ...[...html.matchAll(/<script\b[^>]*type="module"[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]),
    ...[...html.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*\bhref="([^"]+)"/g)].map((m) => m[1]),
  ];
  if (urls.length === 0) throw new Error(`no <script type=module> in ${dist}/${page}`);
  const seen = new Map<string, Chunk>();
  const queue = urls.map((u) => path.join(dist, u.replace(/^\//, '')));
  while (queue.length) {
    const file = queue.shift() as string;
    if (seen.has(file)) continue;
    const buf = readFileSync(file);
    seen.set(file, {
      file: path.relative(dist, file),
      raw: buf.length,
      gzip: gzipSync(buf, { level: 9 }).length,
    });
    for (const spec of staticImports(buf.toString('utf8')))
      queue.push(
        spec.startsWith('/')
          ? path.join(dist, spec.slice(1))
          : path.resolve(path.dirname(file), spec),
      );
  }
  return [...seen.values()].sort((a, b) => b.gzip - a.gzip);
}

const MINIMAL_MAIN = `import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider, useDispatch, useSelector } from 'react-redux';
import { configureStore, createSlice } from '@reduxjs/toolkit';
import { createApi, fetchBaseQuery } from '@reduxjs/toolkit/query/react';

const counter = createSlice({
  name: 'counter',
  initialState: { value: 0 },
  reducers: { increment: (s) => { s.value += 1; }, decrement: (s) => { s.value -= 1; } },
});
const api = createApi({
  reducerPath: 'api',
  baseQuery: fetchBaseQuery({ baseUrl: '/api' }),
  endpoints: (b) => ({ health: b.query({ query: () => 'healthz' }) }),
});
const store = configureStore({
  reducer: { counter: counter.reducer, [api.reducerPath]: api.reducer },
  middleware: (gdm) => gdm().concat(api.middleware),
});

function Counter() {
  const value = useSelector((s) => s.counter.value);
  const dispatch = useDispatch();
  const { data, isLoading } = api.useHealthQuery();
  return (
    <main>
      <h1>Counter</h1>
      <p>{value}</p>
      <button onClick={() => dispatch(counter.actions.decrement())}>-</button>
      <button onClick={() => dispatch(counter.actions.increment())}>+</button>
      <p>{isLoading ? 'Loading…' : JSON.stringify(data)}</p>
    </main>
  );
}

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <Provider store={store}>
      <Counter />
    </Provider>
  </StrictMode>,
);
`;

/** Writes and builds the minimal app with the same vite and plugin-react the web app uses. */
function buildMinimalApp(): string {
  rmSync(minimalDir, { recursive: true, force: true });
  mkdirSync(path.join(minimalDir, 'src'), { recursive: true });
  const webRequire = createRequire(path.join(webDir, 'package.json'));
  const pluginReact = pathToFileURL(webRequire.resolve('@vitejs/plugin-react')).href;
  const viteBin = path.join(
    path.dirname(webRequire.resolve('vite/package.json')),
    'bin',
    'vite.js',
  );
  writeFileSync(
    path.join(minimalDir, 'index.html'),
    `<!doctype html>\n<html lang="en"><head><meta charset="UTF-8" /><title>Minimal</title></head>\n` +
      `<body><div id="root"></div><script type="module" src="/src/main.jsx"></script></body></html>\n`,
  );
  writeFileSync(path.join(minimalDir, 'src', 'main.jsx'), MINIMAL_MAIN);
  writeFileSync(
    path.join(minimalDir, 'vite.config.mjs'),
    `import { defineConfig } from 'vite';\nimport react from ${JSON.stringify(pluginReact)};\n` +
      `export default defineConfig({ plugins: [react()], build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false } });\n`,
  );
  run(process.execPath, [viteBin, 'build', '--config', 'vite.config.mjs'], minimalDir, {
    ...process.env,
    NODE_ENV: 'production',
  });
  return path.join(minimalDir, 'dist');
}

// ---------------------------------------------------------------- Lighthouse

type Preset = 'desktop' | 'mobile';
interface NetworkItem {
  url: string;
  resourceType?: string;
  transferSize?: number;
}
interface Scores {
  preset: Preset;
  performance: number;
  accessibility: number;
  metrics: Record<string, string>;
  lcpMs: number;
  cls: number;
  failing: string[];
  /** Lighthouse's measure of the host's CPU speed during the run (lower: slower or busier). */
  benchmarkIndex: number;
  /** Every script the page fetched during the run (no user action): bytes over the wire. */
  scripts: Array<{ url: string; transfer: number }>;
}

async function lighthouseScores(
  url: string,
  preset: Preset,
  report: string = preset,
): Promise<Scores> {
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    chromeFlags: CHROMIUM_ARGS,
    logLevel: 'silent',
  });
  try {
    const result = await lighthouse(
      url,
      {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: ['performance', 'accessibility'],
      },
      preset === 'desktop' ? desktopConfig : undefined,
    );
    if (!result) throw new Error('Lighthouse returned no result');
    const lhr = result.lhr;
    mkdirSync(path.join(root, 'bench', '.tmp'), { recursive: true });
    writeFileSync(
      path.join(root, 'bench', '.tmp', `lighthouse-${report}.json`),
      JSON.stringify(lhr, null, 1),
    );
    if (lhr.runtimeError)
      throw new Error(`Lighthouse: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    const metric = (id: string) => lhr.audits[id]?.displayValue ?? '?';
    const failing = Object.values(lhr.categories)
      .flatMap((c) => c.auditRefs.filter((r) => r.weight > 0).map((r) => lhr.audits[r.id]))
      .filter((a) => a && a.score !== null && a.score < 0.9)
      .map((a) => `${a.id} (${a.score}${a.displayValue ? `, ${a.displayValue}` : ''})`);
    return {
      preset,
      performance: lhr.categories.performance?.score ?? 0,
      accessibility: lhr.categories.accessibility?.score ?? 0,
      metrics: {
        FCP: metric('first-contentful-paint'),
        LCP: metric('largest-contentful-paint'),
        TBT: metric('total-blocking-time'),
        CLS: metric('cumulative-layout-shift'),
        SI: metric('speed-index'),
      },
      lcpMs: lhr.audits['largest-contentful-paint']?.numericValue ?? Infinity,
      cls: lhr.audits['cumulative-layout-shift']?.numericValue ?? Infinity,
      failing,
      benchmarkIndex: lhr.environment?.benchmarkIndex ?? 0,
      scripts: (
        (lhr.audits['network-requests']?.details as { items?: NetworkItem[] } | undefined)?.items ??
        []
      )
        .filter((r) => r.resourceType === 'Script')
        .map((r) => ({ url: new URL(r.url).pathname, transfer: r.transferSize ?? 0 })),
    };
  } finally {
    await chrome.kill();
  }
}

/** Lighthouse now and then fails to record a trace (NO_NAVSTART, NO_FCP): one retry. */
async function lighthouseWithRetry(url: string, preset: Preset, report?: string): Promise<Scores> {
  try {
    return await lighthouseScores(url, preset, report);
  } catch (err) {
    step(`Lighthouse failed (${(err as Error).message.split('\n')[0]}); retrying once…`);
    return lighthouseScores(url, preset, report);
  }
}

/** What-if only: a loopback proxy that gzips text responses of `target` (the gateway does not). */
function startGzipProxy(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const t = new URL(target);
  const server = http.createServer((req, res) => {
    const up = http.request(
      {
        host: t.hostname,
        port: t.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, 'accept-encoding': 'identity' },
      },
      (ur) => {
        const headers = { ...ur.headers };
        const text = /text|javascript|json|svg|css/.test(String(ur.headers['content-type'] ?? ''));
        if (
          text &&
          !ur.headers['content-encoding'] &&
          /gzip/.test(String(req.headers['accept-encoding'] ?? ''))
        ) {
          delete headers['content-length'];
          headers['content-encoding'] = 'gzip';
          headers.vary = 'Accept-Encoding';
          res.writeHead(ur.statusCode ?? 502, headers);
          ur.pipe(createGzip({ level: 6 })).pipe(res);
        } else {
          res.writeHead(ur.statusCode ?? 502, headers);
          ur.pipe(res);
        }
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise((r) => server.close(() => r())),
      });
    }),
  );
}

// ---------------------------------------------------------------- main

async function main() {
  const presetEnv = process.env.BENCH_WEB_PRESET ?? 'desktop';
  const presets: Preset[] =
    presetEnv === 'both' ? ['desktop', 'mobile'] : [presetEnv === 'mobile' ? 'mobile' : 'desktop'];

  step('building the web app (npm run build -w web, NODE_ENV=production)…');
  run('npm', ['run', 'build', '-w', 'web'], root, { ...process.env, NODE_ENV: 'production' });
  const landingPage = existsSync(path.join(webDir, 'dist', 'landing.html'))
    ? 'landing.html'
    : 'index.html';
  const app = initialJs(path.join(webDir, 'dist'), landingPage);
  const appGzip = app.reduce((s, c) => s + c.gzip, 0);
  step(`web app landing initial JS: ${app.map((c) => `${c.file} ${kb(c.gzip)}`).join(', ')}`);

  step(
    `writing and building the minimal React + RTK Query app in ${path.relative(root, minimalDir)}…`,
  );
  const minimal = initialJs(buildMinimalApp());
  const minimalGzip = minimal.reduce((s, c) => s + c.gzip, 0);
  step(`minimal app initial JS: ${minimal.map((c) => `${c.file} ${kb(c.gzip)}`).join(', ')}`);
  const ratio = appGzip / minimalGzip;
  if (process.env.BENCH_WEB_SIZE_ONLY === '1') {
    // A quick check (no Lighthouse, RESULTS.md untouched), e.g. after changing the web app's imports.
    const line = `landing initial JS ${kb(appGzip)} vs minimal ${kb(minimalGzip)}: ratio ${ratio.toFixed(2)} (target ≤ ${SIZE_TARGET})`;
    process.stdout.write(`\n${line}\n`);
    failLoudly(ratio > SIZE_TARGET ? [line] : []);
    return;
  }

  step('starting the product (npm start, fresh DATA_DIR, free port)…');
  const product = await startProduct();
  const scores: Scores[] = [];
  const whatIf: Scores[] = [];
  let csp = '';
  try {
    const res = await fetch(`${product.baseUrl}/`);
    csp = res.headers.get('content-security-policy') ?? '(none)';
    step(
      `serving ${product.baseUrl}/ (content-encoding: ${res.headers.get('content-encoding') ?? 'none'})`,
    );
    for (const preset of presets) {
      step(`running Lighthouse 12 (${preset}) on ${product.baseUrl}/…`);
      scores.push(await lighthouseWithRetry(`${product.baseUrl}/`, preset));
    }
    if (process.env.BENCH_WEB_WHATIF === '1') {
      const proxy = await startGzipProxy(product.baseUrl);
      try {
        for (const preset of presets) {
          step(`what-if: Lighthouse (${preset}) through a gzip proxy in front of the gateway…`);
          whatIf.push(await lighthouseWithRetry(`${proxy.url}/`, preset, `${preset}-whatif-gzip`));
        }
      } catch (err) {
        step(`what-if run failed, left out: ${(err as Error).message.split('\n')[0]}`);
      } finally {
        await proxy.close();
      }
    }
  } finally {
    step('stopping the product…');
    await product.stop();
  }

  const ok = (pass: boolean) => (pass ? 'OK' : 'MISSED');
  const lines: string[] = [];
  lines.push(
    `Landing initial JS (gzip -9): web app ${kb(appGzip)} (${app.length} files, ${kb(app.reduce((s, c) => s + c.raw, 0))} raw)` +
      ` vs minimal React + RTK Query app ${kb(minimalGzip)} (${kb(minimal.reduce((s, c) => s + c.raw, 0))} raw)`,
    `  ratio ${ratio.toFixed(2)} (target ≤ ${SIZE_TARGET}) ${ok(ratio <= SIZE_TARGET)}`,
  );
  const missed: string[] = [];
  if (ratio > SIZE_TARGET)
    missed.push(`landing initial JS ratio ${ratio.toFixed(2)} > ${SIZE_TARGET}`);
  for (const s of scores) {
    const t = TARGETS[s.preset];
    const checks: Array<[string, boolean]> = [
      [
        `performance ${s.performance.toFixed(2)} (target ≥ ${t.performance.toFixed(2)})`,
        s.performance >= t.performance,
      ],
      [
        `accessibility ${s.accessibility.toFixed(2)} (target ≥ ${t.accessibility.toFixed(2)})`,
        s.accessibility >= t.accessibility,
      ],
      [`CLS ${s.cls.toFixed(3)} (target ${t.cls})`, s.cls <= t.cls],
      ...(t.lcpMs !== undefined
        ? [
            [`LCP ${Math.round(s.lcpMs)} ms (target ≤ ${t.lcpMs} ms)`, s.lcpMs <= t.lcpMs] as [
              string,
              boolean,
            ],
          ]
        : []),
    ];
    for (const [what, pass] of checks) if (!pass) missed.push(`${s.preset}: ${what}`);
    lines.push(
      `Lighthouse (${s.preset}${s.preset === 'desktop' ? ' preset' : ' default'}): ` +
        checks.map(([what, pass]) => `${what} ${ok(pass)}`).join(', '),
      `  ${Object.entries(s.metrics)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      `  audits below 0.9: ${s.failing.length ? s.failing.join('; ') : 'none'}`,
      `  host: Lighthouse benchmarkIndex ${Math.round(s.benchmarkIndex)}, load average ${os
        .loadavg()
        .map((n) => n.toFixed(1))
        .join(' / ')} (1 / 5 / 15 min, ${os.cpus().length} CPUs)`,
      `  JS fetched during Lighthouse's load trace, no user action (gateway gzip, not a target; the app chunk follows on the first act, a form within a screen, or 4 s untouched): ${kb(s.scripts.reduce((n, r) => n + r.transfer, 0))} in ${s.scripts.length} files` +
        ` (${s.scripts.map((r) => `${r.url.replace(/^\/assets\//, '')} ${kb(r.transfer)}`).join(', ')})`,
    );
  }
  for (const s of whatIf)
    lines.push(
      `What-if, not a target: gzip in front of the gateway (${s.preset}): performance ${s.performance.toFixed(2)}, ` +
        `accessibility ${s.accessibility.toFixed(2)}; ${Object.entries(s.metrics)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
    );
  process.stdout.write(`\n${lines.join('\n')}\n`);

  const machine =
    `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GB memory, ` +
    `node ${process.version}, ${os.type()} ${os.release()}`;
  const table = [
    '| file | raw | gzip -9 |',
    '|---|---:|---:|',
    ...app.map((c) => `| web: ${c.file} | ${kb(c.raw)} | ${kb(c.gzip)} |`),
    ...minimal.map((c) => `| minimal: ${c.file} | ${kb(c.raw)} | ${kb(c.gzip)} |`),
  ];
  writeFileSync(
    path.join(root, 'bench', 'web', 'RESULTS.md'),
    `# bench:web results\n\n` +
      `Produced by \`BENCH_WEB_PRESET=${presetEnv} npm run bench:web\` (bench/web/run.ts) on ${new Date().toISOString()}. ` +
      `Targets (issue #22): initial JS ≤ ${SIZE_TARGET}× the minimal app; desktop preset performance and accessibility 1.00, ` +
      `CLS 0; mobile (Lighthouse's default emulation: slow 4G, 4x CPU slowdown) performance ≥ 0.98, LCP ≤ 1.5 s, ` +
      `accessibility 1.00, CLS 0. BENCH_WEB_PRESET=both measures both.\n\n` +
      `Machine: ${machine}. Chromium: ${process.env.CHROME_PATH ?? '/usr/bin/chromium'}.\n\n` +
      '```\n' +
      lines.join('\n') +
      '\n```\n\n' +
      `Initial JS = the \`<script type=module>\` entry of web/dist/${landingPage} (what the gateway serves for \`/\`), its modulepreload links and their ` +
      `static imports (no lazy chunk). The minimal app is a counter slice + one createApi endpoint, built by the same ` +
      `vite and @vitejs/plugin-react with NODE_ENV=production.\n\n` +
      table.join('\n') +
      `\n\nLighthouse ran against \`npm start\` (gateway headers as shipped, web app gzipped by the gateway; CSP: \`${csp}\`).\n`,
  );
  step('wrote bench/web/RESULTS.md');
  failLoudly(missed);
}

/** Exit 1 with every missed target on stderr, so a drifting figure stops CI or a script the day it happens. */
function failLoudly(missed: string[]): void {
  if (missed.length === 0) {
    step('all targets met');
    process.exit(0);
  }
  process.stderr.write(
    `\n${'!'.repeat(72)}\nbench:web FAILED: ${missed.length} target${missed.length === 1 ? '' : 's'} missed\n` +
      missed.map((m) => `  - ${m}\n`).join('') +
      `${'!'.repeat(72)}\n`,
  );
  process.exit(1);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:web failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
