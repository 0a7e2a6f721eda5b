/**
 * The site check on this machine (issue 53): what one replica (SITE_CHECK_CONCURRENCY=1) does.
 *
 *   NODE_OPTIONS=--expose-gc npx tsx bench/site-check.ts            # 50 checks + 3 with Lighthouse
 *   SITE_CHECK_BENCH_RUNS=10 npx tsx bench/site-check.ts               # fewer
 *
 * - Throughput: checks per minute, one after the other, of the flawed fixture site
 *   (services/site-check/test/fixtures/sites.ts) on 127.0.0.1, without Lighthouse (50 runs) and
 *   with it at both sizes (3 runs), as the worker runs them (providers/site-runner.ts: a browser
 *   per check, the egress proxy, both sizes, axe-core, links, screenshots).
 * - Peak memory per check: the browser's processes together (proportional set size, the figure
 *   SITE_CHECK_MEMORY_LIMIT_MB is checked against), and the worker process's resident memory.
 * - Steadiness: the worker process's heap and RSS after a full garbage collection after the 5th
 *   and after the last of the 50 checks in a row: the last within 10% of the 5th.
 *
 * Prints the figures, writes its section of bench/RESULTS.md and bench/results/site-check-<time>.json.
 */
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  runSiteCheck,
  type RunnerOptions,
} from '../services/site-check/src/providers/site-runner.js';
import { startFixtureSite } from '../services/site-check/test/fixtures/sites.js';
import { writeAloneSection } from './results.js';
import { figure, isMain, loadLine, step } from './support.js';

const NAME = 'site-check';
export const INTRO =
  "One replica's worker as it runs checks (services/site-check/src/providers/site-runner.ts: a browser per check, the egress proxy, both sizes, axe-core, links, screenshots), one after the other, of the flawed fixture site on 127.0.0.1.";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.SITE_CHECK_BENCH_RUNS ?? 50);
const LIGHTHOUSE_RUNS = Number(process.env.SITE_CHECK_BENCH_LIGHTHOUSE_RUNS ?? 3);
const MB = 1024 * 1024;

const gc = (globalThis as { gc?: () => void }).gc;
const settledMemory = async () => {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 100));
  }
  const m = process.memoryUsage();
  return { heapMb: m.heapUsed / MB, rssMb: m.rss / MB };
};

async function series(n: number, lighthouse: boolean, url: string) {
  const durations: number[] = [];
  const peaks: number[] = [];
  const memory: Array<{ heapMb: number; rssMb: number }> = [];
  const opts: RunnerOptions = {
    chromePath: process.env.SITE_CHECK_CHROMIUM_PATH ?? '/usr/bin/chromium',
    allowPrivate: true,
    pageTimeoutMs: 60_000,
    checkTimeoutMs: 240_000,
    memoryLimitMb: 1536,
    lighthouse,
    maxLinks: 25,
    userAgent: 'HumanTest-SiteCheck/1.0 (bench)',
    onPeakMemory: (b) => peaks.push(b / MB),
  };
  for (let i = 0; i < n; i++) {
    const t = Date.now();
    const r = await runSiteCheck(url, opts);
    if (!r.ok) throw new Error(`check ${i + 1} failed: ${r.failure.reason} ${r.failure.detail}`);
    durations.push((Date.now() - t) / 1000);
    memory.push(await settledMemory());
    process.stdout.write(
      `  ${lighthouse ? 'with' : 'without'} Lighthouse ${i + 1}/${n}: ${durations.at(-1)!.toFixed(1)} s, browser peak ${peaks.at(-1)!.toFixed(0)} MB, worker heap ${memory.at(-1)!.heapMb.toFixed(1)} MB\n`,
    );
  }
  const total = durations.reduce((a, b) => a + b, 0);
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    runs: n,
    checksPerMinute: Math.round((60 / (total / n)) * 100) / 100,
    medianSeconds: sorted[Math.floor(n / 2)],
    browserPeakMb: {
      max: Math.round(Math.max(...peaks)),
      median: Math.round([...peaks].sort((a, b) => a - b)[Math.floor(n / 2)]),
    },
    memory,
  };
}

export async function run(opts: { runs?: number; lighthouseRuns?: number } = {}): Promise<boolean> {
  const runs = opts.runs ?? RUNS;
  const lighthouseRuns = opts.lighthouseRuns ?? LIGHTHOUSE_RUNS;
  const site = await startFixtureSite();
  const started = Date.now();
  try {
    step(
      NAME,
      `uptime: ${execSync('uptime').toString().trim()}; ${runs} checks without Lighthouse, ${lighthouseRuns} with${gc ? '' : ' (no --expose-gc: memory figures are rougher)'}`,
    );
    const plain = await series(runs, false, site.url);
    const withLh = lighthouseRuns ? await series(lighthouseRuns, true, site.url) : null;
    const fifth = plain.memory[Math.min(4, plain.memory.length - 1)];
    const last = plain.memory.at(-1)!;
    const steadiness = {
      afterFifth: fifth,
      afterLast: last,
      heapRatio: Math.round((last.heapMb / fifth.heapMb) * 1000) / 1000,
      rssRatio: Math.round((last.rssMb / fifth.rssMb) * 1000) / 1000,
    };
    const targetMet = steadiness.heapRatio <= 1.1 && steadiness.rssRatio <= 1.1;
    figure(NAME, 'machine load average (1, 5, 15 min) at the end', loadLine());
    figure(
      NAME,
      `checks per minute, one replica (SITE_CHECK_CONCURRENCY=1), without Lighthouse (${runs} in a row; median s per check)`,
      `${plain.checksPerMinute} (${plain.medianSeconds.toFixed(1)} s)`,
    );
    if (withLh)
      figure(
        NAME,
        `checks per minute with Lighthouse at both sizes (${lighthouseRuns} in a row; median s per check)`,
        `${withLh.checksPerMinute} (${withLh.medianSeconds.toFixed(1)} s)`,
      );
    figure(
      NAME,
      "peak memory of one check, the browser's processes together (PSS, MB): max / median, without Lighthouse",
      `${plain.browserPeakMb.max} / ${plain.browserPeakMb.median}`,
    );
    if (withLh)
      figure(
        NAME,
        'the same with Lighthouse (MB): max / median',
        `${withLh.browserPeakMb.max} / ${withLh.browserPeakMb.median}`,
      );
    figure(
      NAME,
      `worker process after a full GC, after the 5th -> after the ${runs}th check: heap / RSS (MB)`,
      `${fifth.heapMb.toFixed(1)} -> ${last.heapMb.toFixed(1)} / ${fifth.rssMb.toFixed(0)} -> ${last.rssMb.toFixed(0)}`,
    );
    figure(
      NAME,
      'worker memory after the last / after the 5th: heap, RSS',
      `${steadiness.heapRatio}, ${steadiness.rssRatio}`,
      { text: '<= 1.1 both', ok: targetMet },
    );
    const result = {
      date: new Date().toISOString(),
      tookSeconds: Math.round((Date.now() - started) / 1000),
      machine: {
        cpus: os.cpus().length,
        load: os.loadavg().map((l) => Math.round(l * 100) / 100),
        node: process.version,
      },
      withoutLighthouse: { ...plain, memory: undefined },
      withLighthouse: withLh ? { ...withLh, memory: undefined } : null,
      steadiness,
      targetMet,
    };
    mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
    const file = path.join(
      ROOT,
      'bench',
      'results',
      `site-check-${result.date.replace(/[:.]/g, '-').slice(0, 19)}.json`,
    );
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    step(NAME, `every check's figures in ${path.relative(ROOT, file)}`);
    return targetMet;
  } finally {
    await site.close();
  }
}

if (isMain(import.meta.url)) {
  const started = new Date();
  const ok = await run();
  writeAloneSection(NAME, started, INTRO);
  if (!ok) process.exitCode = 1;
}
