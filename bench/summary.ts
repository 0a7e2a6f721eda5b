/**
 * Report summaries ("The report gives a verdict", issue #51): how long a jobs process computes the
 * summary of a pack of 10 testers with 30 findings (3 each; the texts are paraphrase pairs of the
 * grouping's development set, so groups form), beside a baseline measured in the same run.
 *
 * Measured: exactly the pure part of domain/summaries.ts's computeSummary (summaryInputOf: the
 * grouping by people's decisions and language, the titles; summarize twice: the full summary and
 * the poster's accepted-only view; sha256 of what is stored), per round:
 * - recomputed: the texts' terms already kept by the lexicon (a second report, an acceptance, an
 *   owner's merge: every computation after the first);
 * - new texts: the same pack with every finding text read for the first time (each round's texts
 *   end with its own number of spaces: the lexicon keeps terms per text, and reads the same words;
 *   the model and WordNet already in memory, as in a running jobs process). One lexicon only: a
 *   second wink-nlp instance in a process re-serialises the model's shared data (jobs makes one).
 * The baseline, in alternate rounds: JSON-stringifying and hashing a 1 MB document 10 times, so
 * the ratio shows how much of a slow figure is the machine's load. Target (issue #51): <= 200 ms.
 * Not a timed test: run `npx tsx bench/summary.ts` (writes its section of bench/RESULTS.md).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  createLexicon,
  summarize,
  summaryInputOf,
  type SummarySubmission,
} from '@htm/jobs/testing';
import { figure, isMain, noteMachineLoad, pct, step } from './support.js';
import { writeAloneSection } from './results.js';

const NAME = 'summary';
const ROUNDS = 60;
const TARGET_MS = 200;

const pairs = JSON.parse(
  readFileSync(
    new URL('../services/jobs/src/domain/finding-pairs.fixture.json', import.meta.url),
    'utf8',
  ),
) as { same: Array<[string, string]> };

const SEVERITIES = ['blocker', 'major', 'minor', 'cosmetic'] as const;

/** A pack of 10 reports with 3 findings each, a recording, task answers and SUS. */
function pack(): SummarySubmission[] {
  const texts = pairs.same.slice(0, 15).flat();
  return Array.from({ length: 10 }, (_, t) => ({
    id: `00000000-0000-4000-8000-00000000000${t}`,
    findings: [0, 1, 2].map((k) => ({
      text: texts[t * 3 + k],
      severity: SEVERITIES[(t + k) % SEVERITIES.length],
      atMs: 20_000 * (k + 1) + t * 1_000,
      requirementIndex: k % 2,
    })),
    screenshotUrl: null,
    recording: { id: `rec-${t}`, durationMs: 300_000 },
    tasks: [
      {
        requirementIndex: 0,
        outcome: t % 3 ? 'done' : 'partly',
        seq: 3 + (t % 5),
        timeMs: 120_000,
      },
      { requirementIndex: 1, outcome: t % 4 ? 'done' : 'not_done', seq: 2 + (t % 6), timeMs: null },
    ],
    sus: [4, 2, 4, 1, 4, 2, 5, 2, 4, 1],
  }));
}

function computeOnce(lexicon: ReturnType<typeof createLexicon>, subs: SummarySubmission[]): void {
  const input = summaryInputOf(lexicon, {
    now: new Date(),
    requirements: ['Buy a mug as a new customer', 'Find the shipping costs'],
    submissions: subs,
    decided: [],
    machine: [],
  });
  const full = summarize(input);
  const accepted = summarize({
    ...input,
    submissions: input.submissions.map((s, i) => (i % 2 ? { ...s, tasks: [], sus: null } : s)),
  });
  createHash('sha256').update(JSON.stringify({ full, accepted })).digest('hex');
}

const BASELINE_DOC = {
  rows: Array.from({ length: 8_000 }, (_, i) => ({ i, text: `finding ${i} `.repeat(10) })),
};
function baselineOnce(): void {
  for (let k = 0; k < 10; k++)
    createHash('sha256').update(JSON.stringify(BASELINE_DOC)).digest('hex');
}

const timed = (fn: () => void) => {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
};
const ms = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: pct(s, 50), p99: pct(s, 99) };
};

export async function run(): Promise<void> {
  const started = new Date();
  const subs = pack();
  step(NAME, 'loading the English model and WordNet (once per process)');
  const warm = createLexicon();
  const loadMs = timed(() => warm.terms('The page loads'));
  computeOnce(warm, subs); // the first computation pays the JIT
  const recomputed: number[] = [];
  const fresh: number[] = [];
  const baseline: number[] = [];
  step(NAME, `${ROUNDS} rounds: recomputed, new texts and the baseline in turn`);
  for (let r = 0; r < ROUNDS; r++) {
    recomputed.push(timed(() => computeOnce(warm, subs)));
    const renewed = subs.map((s) => ({
      ...s,
      findings: s.findings.map((f) => ({ ...f, text: f.text + ' '.repeat(r + 1) })),
    }));
    fresh.push(timed(() => computeOnce(warm, renewed)));
    baseline.push(timed(baselineOnce));
  }
  const rc = ms(recomputed);
  const fr = ms(fresh);
  const bl = ms(baseline);
  figure(NAME, 'model and WordNet loaded, first text read (ms, once per process)', loadMs);
  figure(NAME, 'pack of 10, 30 findings, recomputed: p50 (ms)', rc.p50);
  figure(NAME, 'pack of 10, 30 findings, recomputed: p99 (ms)', rc.p99, {
    text: `<= ${TARGET_MS}`,
    ok: rc.p99 <= TARGET_MS,
  });
  figure(NAME, 'pack of 10, 30 findings, every text new: p50 (ms)', fr.p50);
  figure(NAME, 'pack of 10, 30 findings, every text new: p99 (ms)', fr.p99, {
    text: `<= ${TARGET_MS}`,
    ok: fr.p99 <= TARGET_MS,
  });
  figure(
    NAME,
    'baseline (10 x JSON + sha256 of 1 MB): p50 / p99 (ms)',
    `${bl.p50.toFixed(1)} / ${bl.p99.toFixed(1)}`,
  );
  figure(NAME, 'every text new, p50 / baseline p50', fr.p50 / bl.p50);
  noteMachineLoad(NAME);
  const busy = os.loadavg()[0] > os.cpus().length;
  writeAloneSection(
    NAME,
    started,
    busy
      ? '**The machine was busy** (load average above its core count, shared with other work): these figures are an upper bound; the lead reruns this on a quiet machine. Compare the summary with the baseline measured in the same rounds.'
      : '',
  );
}

if (isMain(import.meta.url)) await run();
