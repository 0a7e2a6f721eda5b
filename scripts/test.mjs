#!/usr/bin/env node
// Runs every test (jest, ESM mode) and prints the totals as its last line:
// "N passed, N failed" (read by CI). Extra arguments go to jest.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';

mkdirSync('test-results', { recursive: true });
// Browser tests and the npm start test each run `npm start`, which builds the web app when it
// is missing: build it once here so parallel test files never build it at the same time.
if (!existsSync('web/dist/index.html')) {
  console.log('[test] building the web app once before the tests');
  const b = spawnSync('npm', ['run', 'build', '-w', 'web'], { stdio: 'inherit' });
  if (b.status !== 0) {
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}
const out = 'test-results/jest.json';
const env = {
  ...process.env,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules --no-warnings`.trim(),
};
const args = ['jest', '--json', `--outputFile=${out}`, '--testTimeout=60000', ...process.argv.slice(2)];
if (!process.argv.some((a) => a.startsWith('--maxWorkers') || a === '-i' || a === '--runInBand')) {
  args.push('--maxWorkers=2');
}
const res = spawnSync('npx', args, { stdio: 'inherit', env });
let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(out)) {
  const r = JSON.parse(readFileSync(out, 'utf8'));
  passed = r.numPassedTests;
  failed = r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
  skipped = r.numPendingTests + (r.numTodoTests ?? 0);
} else {
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(res.status === 0 && failed === 0 ? 0 : 1);
