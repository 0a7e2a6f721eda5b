import { describe, expect, it } from '@jest/globals';
import { SUMMARY_LIMITS } from '@htm/contracts';
import {
  firstScreenWords,
  median,
  summarize,
  susScore,
  taskMetrics,
  type SummarySubmission,
} from './report-summary.js';
import { SLOW_ON_PHONE } from './machine-finding.fixture.js';

const sub = (id: string, over: Partial<SummarySubmission> = {}): SummarySubmission => ({
  id,
  findings: [],
  screenshotUrl: null,
  recording: null,
  tasks: [],
  sus: null,
  ...over,
});

describe('susScore (Brooke 1996: odd items - 1, 5 - even items, sum x 2.5)', () => {
  it('scores the scale ends and its middle: 100, 0 and 50', () => {
    expect(susScore([5, 1, 5, 1, 5, 1, 5, 1, 5, 1])).toBe(100);
    expect(susScore([1, 5, 1, 5, 1, 5, 1, 5, 1, 5])).toBe(0);
    expect(susScore([3, 3, 3, 3, 3, 3, 3, 3, 3, 3])).toBe(50);
  });

  it('matches the second published form ((sum of odd - 5) + (25 - sum of even)) x 2.5, and a sum of 22 is 55 (Tullis and Albert)', () => {
    const answers = [4, 2, 3, 3, 3, 2, 4, 3, 3, 5];
    const odd = answers.filter((_, i) => i % 2 === 0).reduce((a, b) => a + b, 0);
    const even = answers.filter((_, i) => i % 2 === 1).reduce((a, b) => a + b, 0);
    expect(susScore(answers)).toBe((odd - 5 + (25 - even)) * 2.5);
    expect(susScore(answers)).toBe(55);
  });

  it('refuses an incomplete or out-of-range questionnaire rather than scoring it', () => {
    expect(susScore([5, 1, 5, 1, 5, 1, 5, 1, 5])).toBeNull();
    expect(susScore([6, 1, 5, 1, 5, 1, 5, 1, 5, 1])).toBeNull();
  });
});

describe('taskMetrics', () => {
  it('counts only the answers given: missing ones shrink n, never the mean', () => {
    const subs = [
      sub('a', { tasks: [{ requirementIndex: 0, outcome: 'done', seq: 7, timeMs: 40_000 }] }),
      sub('b', { tasks: [{ requirementIndex: 0, outcome: 'partly', seq: null, timeMs: 60_000 }] }),
      sub('c', { tasks: [{ requirementIndex: 0, outcome: null, seq: 5, timeMs: null }] }),
      sub('d'),
    ];
    const [t, other] = taskMetrics(['Find the price', 'Sign up'], subs);
    expect(t).toMatchObject({
      requirement_index: 0,
      text: 'Find the price',
      success_rate: 0.75,
      n: 2,
      seq_mean: 6,
      seq_n: 2,
      median_time_ms: 50_000,
    });
    expect(t.sentence).toBe('Easier than most sites (6 of 7, 2 testers).');
    expect(other).toMatchObject({ success_rate: null, seq_mean: null, n: 0, seq_n: 0 });
    expect(other.sentence).toBe('No one rated how easy it was.');
  });

  it('says harder than most below the SEQ average of 5.5', () => {
    const subs = [3, 4, 6].map((seq, i) =>
      sub(`s${i}`, { tasks: [{ requirementIndex: 0, outcome: 'done', seq, timeMs: null }] }),
    );
    expect(taskMetrics(['Pay'], subs)[0]).toMatchObject({
      seq_mean: 4.3,
      sentence: 'Harder than most sites (4.3 of 7, 3 testers).',
    });
  });

  it('takes the middle of an odd count and the mean of the two middles of an even one', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});

describe('summarize', () => {
  const at = new Date('2026-11-29T10:00:00Z');
  const rec = (id: string, durationMs: number | null = 120_000) => ({ id, durationMs });

  it('puts "3 of 5" first with its three moments, and a blocker seen by one above a cosmetic seen by three', () => {
    const subs = [
      sub('s1', {
        recording: rec('r1'),
        findings: [
          { text: 'Checkout forces account creation', severity: 'major', atMs: 30_000 },
          { text: 'Logo is blurry', severity: 'cosmetic', atMs: 5_000 },
        ],
      }),
      sub('s2', {
        recording: rec('r2'),
        findings: [
          { text: 'Must create an account to check out', severity: 'major', atMs: 42_000 },
          { text: 'Logo looks pixelated', severity: 'cosmetic', atMs: 2_000 },
        ],
      }),
      sub('s3', {
        recording: rec('r3'),
        findings: [
          { text: 'Had to sign up before paying', severity: 'minor', atMs: 61_000 },
          { text: 'The logo is fuzzy', severity: 'cosmetic', atMs: 1_000 },
        ],
      }),
      sub('s4', {
        recording: rec('r4'),
        findings: [{ text: 'Pay button does nothing', severity: 'blocker', atMs: 90_000 }],
      }),
      sub('s5', { findings: [{ text: 'Footer has a typo', severity: null, atMs: null }] }),
    ];
    const summary = summarize({
      generatedAt: at,
      requirements: ['Buy a product'],
      submissions: subs,
      groups: [
        [
          { submission: 0, finding: 0 },
          { submission: 1, finding: 0 },
          { submission: 2, finding: 0 },
        ],
        [
          { submission: 0, finding: 1 },
          { submission: 1, finding: 1 },
          { submission: 2, finding: 1 },
        ],
      ],
      titles: ['Checkout forces account creation', 'Logo is blurry'],
    });
    expect(summary.problems.map((p) => [p.title, p.severity, p.testers_hit])).toEqual([
      ['Pay button does nothing', 'blocker', 1],
      ['Checkout forces account creation', 'major', 3],
      ['Logo is blurry', 'cosmetic', 3],
      ['Footer has a typo', null, 1],
    ]);
    const accounts = summary.problems[1];
    expect(accounts.testers_total).toBe(5);
    expect(accounts.evidence.map((e) => [e.submission_id, e.finding_index, e.at_ms])).toEqual([
      ['s1', 0, 30_000],
      ['s2', 0, 42_000],
      ['s3', 0, 61_000],
    ]);
    expect(summary.generated_at).toBe(at.toISOString());
    // One clip per top problem with a recorded moment: 5 s before to 10 s after the first moment.
    expect(summary.reel).toEqual([
      { recording_id: 'r4', start_ms: 85_000, end_ms: 100_000, caption: 'Pay button does nothing' },
      {
        recording_id: 'r1',
        start_ms: 25_000,
        end_ms: 40_000,
        caption: 'Checkout forces account creation',
      },
      { recording_id: 'r3', start_ms: 0, end_ms: 11_000, caption: 'Logo is blurry' },
    ]);
  });

  it('ranks equal severity and count by the earlier moment, and gives the same summary for the same input', () => {
    const input = {
      generatedAt: at,
      requirements: [],
      submissions: [
        sub('a', {
          findings: [{ text: 'Zebra menu breaks', severity: 'major' as const, atMs: 9_000 }],
        }),
        sub('b', {
          findings: [{ text: 'Apple menu breaks', severity: 'major' as const, atMs: 20_000 }],
        }),
      ],
      groups: [],
    };
    const s = summarize(input);
    expect(s.problems.map((p) => p.title)).toEqual(['Zebra menu breaks', 'Apple menu breaks']);
    expect(summarize(input)).toEqual(s);
  });

  it('keeps clips inside their recording, merges overlapping ones, and the reel within 90 s for 10 testers', () => {
    const subs = Array.from({ length: 10 }, (_, i) =>
      sub(`s${i}`, {
        recording: rec(`r${i}`, 20_000),
        // The first tester's two problems come first (blockers) and lie 7 s apart.
        findings: [
          { text: `Problem ${i} near the end`, severity: i ? 'major' : 'blocker', atMs: 19_000 },
          { text: `Problem ${i} again`, severity: i ? 'major' : 'blocker', atMs: 12_000 },
        ],
      }),
    );
    const s = summarize({ generatedAt: at, requirements: [], submissions: subs, groups: [] });
    expect(s.problems).toHaveLength(SUMMARY_LIMITS.problems);
    let total = 0;
    for (const c of s.reel) {
      expect(c.start_ms).toBeGreaterThanOrEqual(0);
      expect(c.end_ms).toBeLessThanOrEqual(20_000);
      total += c.end_ms - c.start_ms;
    }
    expect(total).toBeLessThanOrEqual(SUMMARY_LIMITS.reelMaxMs);
    // Two problems of one recording whose clips overlap became one clip with both captions.
    expect(s.reel[0]).toEqual({
      recording_id: 'r0',
      start_ms: 7_000,
      end_ms: 20_000,
      caption: 'Problem 0 again · Problem 0 near the end',
    });
    expect(new Set(s.reel.map((c) => c.recording_id)).size).toBe(s.reel.length);
  });

  it('keeps the first screen within 200 words however long the findings, and lists what worked', () => {
    const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const subs = Array.from({ length: 8 }, (_, i) =>
      sub(`s${i}`, {
        findings: [{ text: `${long} ${i}`, severity: 'major', atMs: null }],
        tasks: [{ requirementIndex: 0, outcome: 'done', seq: 6, timeMs: null }],
      }),
    );
    const s = summarize({
      generatedAt: at,
      requirements: [`Find the opening hours ${long}`],
      submissions: subs,
      groups: [],
    });
    expect(s.worked).toHaveLength(1);
    expect(s.worked[0]).toMatch(/: done by 8 testers$/);
    expect(firstScreenWords(s)).toBeLessThanOrEqual(SUMMARY_LIMITS.firstScreenWords);
  });

  it('averages SUS over the questionnaires given, null when none', () => {
    const s = summarize({
      generatedAt: at,
      requirements: [],
      submissions: [
        sub('a', { sus: [5, 1, 5, 1, 5, 1, 5, 1, 5, 1] }),
        sub('b', { sus: [3, 3, 3, 3, 3, 3, 3, 3, 3, 3] }),
        sub('c'),
      ],
      groups: [],
    });
    expect(s.sus).toEqual({
      mean: 75,
      n: 2,
      sentence: 'More usable than most sites (75 of 100, the average is 68; 2 testers).',
    });
    expect(
      summarize({ generatedAt: at, requirements: [], submissions: [sub('a')], groups: [] }).sus,
    ).toBeNull();
  });
});

describe('machine findings strengthen the summary', () => {
  const finding = (text: string) => ({ text, severity: 'major' as const, atMs: null });
  const speed = SLOW_ON_PHONE;
  const contrast = {
    ...speed,
    key: 'a11y:color-contrast',
    topic: 'accessibility' as const,
    rule: 'color-contrast',
    text: 'Some text is too faint.',
  };

  it('attaches the health check finding to the human problem it matches ("the health check found this too") and ranks it first among equals', () => {
    const s = summarize({
      generatedAt: new Date(0),
      requirements: [],
      submissions: [
        sub('a', { findings: [finding('The footer has a typo')] }),
        sub('b', { findings: [finding('Checkout pages are slow to load')] }),
      ],
      groups: [],
      machine: [contrast, speed],
    });
    expect(s.problems.map((p) => p.title)).toEqual([
      'Checkout pages are slow to load',
      'The footer has a typo',
    ]);
    expect(s.problems[0].machine_findings).toEqual([
      { key: speed.key, topic: 'speed', impact: 'serious', text: speed.text },
    ]);
    expect(s.problems[1].machine_findings).toEqual([]);
  });

  it('attaches nothing without a health check, and never outranks severity or testers hit', () => {
    const input = {
      generatedAt: new Date(0),
      requirements: [],
      submissions: [
        sub('a', {
          findings: [{ ...finding('The pay button does nothing'), severity: 'blocker' as const }],
        }),
        sub('b', { findings: [finding('Pages load slowly')] }),
      ],
      groups: [],
    };
    expect(summarize(input).problems.every((p) => p.machine_findings!.length === 0)).toBe(true);
    expect(summarize({ ...input, machine: [speed] }).problems[0].title).toBe(
      'The pay button does nothing',
    );
  });
});
