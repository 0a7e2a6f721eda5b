/**
 * `npm run bench`: every benchmark against one all-in-one stack (every service + gateway in
 * this process, real Postgres and Redis like the tests), then bench/RESULTS.md.
 * Figures are ratios measured in one run on this machine, not absolute targets.
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  figure,
  figures,
  notes,
  rssMb,
  sleep,
  startBenchStack,
  step,
  type Stack,
} from './support.js';
import { run as gatewayRead } from './gateway-read.js';
import { run as listingScale } from './listing-scale.js';
import { run as insightsScale } from './insights-scale.js';
import { run as claimStorm } from './claim-storm.js';
import { run as eventLatency } from './event-latency.js';
import { run as liveLatency } from './live-latency.js';
import { aloneSections, writeAloneSection } from './results.js';
import { run as recordingUpload } from './recording-upload.js';
import { INTRO as eventPipelineIntro, run as eventPipeline } from './event-pipeline.js';
import { INTRO as siteCheckIntro, run as siteCheck } from './site-check.js';
import { INTRO as reportPackIntro, run as reportPack } from './report-pack.js';
import { INTRO as remuxIntro, run as recordingRemux } from './recording-remux.js';
import { run as summary } from './summary.js';

/**
 * Benches that keep a section of their own in RESULTS.md (each can also run alone): run after the
 * others, each section replaced with this run's figures, which stay out of the common table.
 */
const ALONE: Array<
  [name: string, fn: (stack: Stack) => Promise<unknown>, intro: string | 'writes its own']
> = [
  ['event-pipeline', () => eventPipeline(), eventPipelineIntro],
  ['site-check', () => siteCheck(), siteCheckIntro],
  ['report-pack', (s) => reportPack(s), reportPackIntro],
  ['recording-remux', () => recordingRemux(), remuxIntro],
  ['summary', () => summary(), 'writes its own'],
];

const started = new Date();
step(
  'bench',
  'starting the stack (identity, jobs + worker, payments, admin, gateway; real Postgres + Redis)',
);
const stack = await startBenchStack('bench');
await sleep(2000);
global.gc?.();
const idle = rssMb();
const failures: string[] = [];
try {
  figure('memory', 'RSS of the all-in-one process, idle (MB)', idle);
  for (const [name, fn] of [
    ['gateway-read', () => gatewayRead(stack)],
    ['listing-scale', () => listingScale(stack)],
    ['insights-scale', () => insightsScale(stack)],
    ['claim-storm', () => claimStorm(stack)],
    ['event-latency', () => eventLatency(stack)],
    ['live-latency', () => liveLatency(stack)],
    ['recording-upload', () => recordingUpload(stack)],
  ] as const) {
    step(name, 'running');
    try {
      await fn();
    } catch (err) {
      failures.push(`${name}: ${(err as Error).message}`);
      console.error(`${name} failed:`, err);
    }
  }
  for (const [name, fn, intro] of ALONE) {
    step(name, 'running (its own section of RESULTS.md)');
    const at = new Date();
    try {
      await fn(stack);
      if (intro !== 'writes its own') writeAloneSection(name, at, intro);
    } catch (err) {
      failures.push(`${name}: ${(err as Error).message}`);
      console.error(`${name} failed:`, err);
    }
  }
  figure('memory', 'RSS after every benchmark (MB)', rssMb());
  global.gc?.();
  await sleep(1000);
  figure('memory', 'RSS after every benchmark, 1 s later (MB)', rssMb());
  figure('memory', 'RSS growth after / idle', rssMb() / idle);
} finally {
  await stack.stop();
}

const sh = (c: string) => {
  try {
    return execSync(c, { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};
const machine = [
  `- Date: ${started.toISOString()} (took ${Math.round((Date.now() - started.getTime()) / 1000)} s)`,
  `- CPU: ${sh('nproc')} cores (${os.cpus()[0]?.model ?? 'unknown'}), load average at the end ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
  `- Memory: ${(os.totalmem() / 1024 ** 3).toFixed(1)} GB total`,
  `- Speed: the bare Redis Streams loop (event-pipeline) ran ${
    figures.find((f) => f.name.startsWith('Redis: bare XADD'))?.value ?? 'not measured'
  } events/s`,
  `- Node ${process.version}, ${sh('psql --version')}, ${sh('redis-server --version').split(' ').slice(0, 3).join(' ')}`,
  `- Git: ${sh('git rev-parse --short HEAD')}`,
];
const alone = new Set(ALONE.map(([name]) => name));
const groups = [...new Set(figures.map((f) => f.bench))].filter((g) => !alone.has(g));
const table = groups
  .map((g) => {
    const rows = figures
      .filter((f) => f.bench === g)
      .map(
        (f) =>
          `| ${f.name} | ${f.value} | ${f.target ? `${f.target} ${f.ok ? '(met)' : '(**not met**)'}` : ''} |`,
      );
    return `### ${g}\n\n| figure | value | target |\n|---|---|---|\n${rows.join('\n')}`;
  })
  .join('\n\n');
const md = `# Benchmark results

Produced by \`npm run bench\` (bench/run.ts); each benchmark also runs alone, e.g.
\`npx tsx bench/gateway-read.ts\`. Not part of \`npm test\`.

**Set-up.** Every service and the gateway run in one Node process (test/support/stack.ts),
against a **real PostgreSQL server** (one database, one schema per service, like the tests;
not PGlite) and real Redis (unique key prefix). LOG_LEVEL=silent, rate limits raised so they
do not cap the load (they are still counted). autocannon runs in a second process. The
gateway read path is also measured with the gateway and jobs each in their own process, as
docker-compose and Kubernetes run them, and next to a bare express + http-proxy-middleware hop
in front of a static upstream (what the proxy hop alone allows on this machine). The figures
are what one run measured on the machine below, which other jobs may have been sharing: read
the **ratios**, not the absolute numbers.

**Gateway read path, where the time goes.** On this 2-core machine autocannon, the gateway,
jobs, Postgres and Redis share two cores. The targets (issue #22 part 2) compare our gateway with
a bare express + http-proxy-middleware hop in front of the same upstream: our gateway in front of
a static upstream answering the same page against the bare hop there, one process each, and the
all-in-one process against a bare hop in front of that process's own jobs service, both >= 0.85
(the gateway's own work at most 15% of the hop). They are measured in 3 rounds that take turns (bare express opens each round and closes
the last; compared targets run next to each other, in reverse order every other round; the median
of the rounds is reported), because the speed of this shared VM drifts during a run, and also by
CPU time per request of the proxying process, net of what it burns idle, which hardly depends on
how long the process waited for a core. The gateway's path: access tokens verified once and
remembered until they expire (no promise on a hit), the per-user API rate limit counted in one
synchronous step and sent to Redis in batches (one pipeline per 100 ms), helmet's headers
computed once, security headers and every proxied call in the same express layer as the
correlation id and metrics, exact route lookup, http-proxy called directly with each replica's
address parsed once, no per-request async context, metric series looked up once.
\`npx tsx bench/profile-gateway.ts\` splits the CPU per request of our gateway and of the bare
hop by middleware (innermost frame of each CPU-profile sample); \`npx tsx bench/profile-read.ts\`
shows the gateway and jobs by package.

## Machine

${machine.join('\n')}

## Figures

${table}

${notes
  .filter((n) => !alone.has(n.bench))
  .map((n) => `### ${n.bench}: ${n.title}\n\n\`\`\`\n${n.text}\n\`\`\``)
  .join('\n\n')}
${failures.length ? `\n## Failures\n\n${failures.map((f) => `- ${f}`).join('\n')}\n` : ''}`;
const out = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
// Sections of the benches run alone (live-scale, event-pipeline, soak) stay as they were.
const kept = existsSync(out) ? aloneSections(readFileSync(out, 'utf8')) : [];
writeFileSync(
  out,
  kept.length ? `${md.trimEnd()}\n\n## Benches run alone\n\n${kept.join('\n\n')}\n` : md,
);
step('bench', `figures written to ${out}`);
if (failures.length) process.exitCode = 1;
