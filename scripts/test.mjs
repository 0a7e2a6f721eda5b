#!/usr/bin/env node
// Runs every test (jest, ESM mode) and prints the totals as its last line:
// "N passed, N failed" (read by CI). Extra arguments go to jest. Prints each phase's time.
//
// Before jest: builds the web app once (browser tests and the npm start test serve it), and makes
// the previous release ready for the mixed-version check (test/mixed-versions, issue #37) so that
// jest runs it with the rest and counts it in the totals. HTM_MIXED_VERSIONS chooses how:
//   build   (default under CI=true) prepare it: reuse the cached build of the previous release
//           (~/.cache/htm-mixed-versions, see scripts/mixed-versions.ts) or build it, about half a
//           minute when both lock files are the same. When they differ it would need an `npm ci`
//           of 2-6 minutes, which CI's 20 minutes do not hold beside the suite: skipped, saying so
//           (the next commit, with the same lock as this one, prepares it by linking again)
//   install as build, and runs that `npm ci` when the lock files differ
//   cached  (default elsewhere) only a cached build; else the file is skipped, saying why
//   off     skip it
// MIXED_VERSIONS_REF names the previous release (default: the `release` tag, else HEAD~1).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';

const startedAt = Date.now();
const secs = (from) => Math.round((Date.now() - from) / 1000);
const say = (msg) => console.log(`[test] ${msg}`);
const extra = process.argv.slice(2);

mkdirSync('test-results', { recursive: true });
// Browser tests and the npm start test each run `npm start`, which builds the web app when it
// is missing: build it once here so parallel test files never build it at the same time.
if (!existsSync('web/dist/index.html')) {
  say('building the web app once before the tests');
  const t = Date.now();
  const b = spawnSync('npm', ['run', 'build', '-w', 'web'], { stdio: 'inherit' });
  say(`phase web build: ${secs(t)} s`);
  if (b.status !== 0) {
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

/** MIXED_PREVIOUS_DIST (and its label) for jest when the previous release is ready, else {}. */
function mixedVersionsEnv() {
  if (process.env.MIXED_PREVIOUS_DIST) return {};
  const mode = process.env.HTM_MIXED_VERSIONS ?? (process.env.CI === 'true' ? 'build' : 'cached');
  const paths = extra.filter((a) => !a.startsWith('-'));
  // A run of chosen test files prepares nothing unless the mixed-version file is among them.
  if (paths.length && !paths.some((p) => p.includes('mixed'))) return {};
  if (mode === 'off') {
    say('mixed-version check skipped (HTM_MIXED_VERSIONS=off)');
    return {};
  }
  const args = ['tsx', 'scripts/mixed-versions.ts', '--prepare'];
  // The previous release: the `release` tag, else HEAD~1, unless MIXED_VERSIONS_REF names one.
  if (process.env.MIXED_VERSIONS_REF) args.push(`--ref=${process.env.MIXED_VERSIONS_REF}`);
  if (mode === 'cached') args.push('--if-cached');
  if (mode !== 'install') args.push('--no-install');
  const t = Date.now();
  const r = spawnSync('npx', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = (r.stdout ?? '').trim().split('\n');
  for (const line of lines.slice(0, -1)) console.log(line);
  let prepared;
  try {
    prepared = JSON.parse(lines.at(-1));
  } catch {
    prepared = { ready: false, reason: `scripts/mixed-versions.ts --prepare exited ${r.status}` };
  }
  say(`phase mixed-version check, previous release: ${secs(t)} s`);
  if (!prepared.ready) {
    const hint = mode === 'cached' ? ' (HTM_MIXED_VERSIONS=build prepares it)' : '';
    say(`mixed-version check skipped: ${prepared.reason}${hint}`);
    return {};
  }
  say(`mixed-version check runs against ${prepared.label}`);
  return { MIXED_PREVIOUS_DIST: prepared.dir, MIXED_PREVIOUS_REF: prepared.label };
}

const out = 'test-results/jest.json';
const env = {
  ...process.env,
  ...mixedVersionsEnv(),
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules --no-warnings`.trim(),
};
const args = ['jest', '--json', `--outputFile=${out}`, '--testTimeout=60000', ...extra];
let workers = 2;
const given = extra.find((a) => a.startsWith('--maxWorkers'));
if (extra.some((a) => a === '-i' || a === '--runInBand')) workers = 1;
else if (given) workers = Number(/=(\d+)$/.exec(given)?.[1] ?? workers);
else args.push(`--maxWorkers=${workers}`);

/**
 * Where the jest phase's time went: the ten slowest files with their share of the workers' time
 * (the phase's wall time from the first file's start to the last file's end, times the workers),
 * and how much of it no file used (a worker waiting for the last files to end).
 */
function whereTheTimeWent(results, n) {
  const files = results
    .filter((t) => t.startTime && t.endTime)
    .map((t) => ({
      s: (t.endTime - t.startTime) / 1000,
      end: t.endTime,
      f: t.name.slice(process.cwd().length + 1),
    }));
  if (!files.length) return [];
  const first = Math.min(...results.map((t) => t.startTime).filter(Boolean));
  const last = Math.max(...files.map((t) => t.end));
  const budget = ((last - first) / 1000) * n;
  const used = files.reduce((sum, t) => sum + t.s, 0);
  const pct = (s) => `${((100 * s) / budget).toFixed(1)}%`;
  const slow = [...files].sort((a, b) => b.s - a.s).slice(0, 10);
  const ends = files.map((t) => t.end).sort((a, b) => b - a);
  return [
    `ten slowest files (share of the ${n} worker${n > 1 ? 's' : ''}' ${budget.toFixed(0)} s): ${slow.map(({ s, f }) => `${f} ${s.toFixed(0)} s (${pct(s)})`).join(', ')}`,
    `${files.length} files used ${used.toFixed(0)} s (${pct(used)}); idle ${Math.max(0, budget - used).toFixed(0)} s (${pct(Math.max(0, budget - used))})${n > 1 && ends.length > 1 ? `; the last file ended ${((ends[0] - ends[1]) / 1000).toFixed(0)} s after the one before it` : ''}`,
  ];
}
const tJest = Date.now();
const res = spawnSync('npx', args, { stdio: 'inherit', env });
say(`phase jest: ${secs(tJest)} s`);
let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(out)) {
  const r = JSON.parse(readFileSync(out, 'utf8'));
  passed = r.numPassedTests;
  failed = r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
  skipped = r.numPendingTests + (r.numTodoTests ?? 0);
  for (const line of whereTheTimeWent(r.testResults, workers)) say(line);
} else {
  failed = 1;
}
say(`all phases: ${secs(startedAt)} s`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(res.status === 0 && failed === 0 ? 0 : 1);
