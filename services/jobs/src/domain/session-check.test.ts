import { describe, expect, it } from '@jest/globals';
import { EXAMPLE_SUBMISSION } from '@htm/contracts/example-report';
import { SESSION_CHECK_DEFAULTS, checkedLine, sessionVerdict } from '@htm/contracts/marketplace';
import {
  evaluateSession,
  itemsCovered,
  longestIdleMs,
  maxContainment,
  reportText,
  talkMs,
  type SessionEvidence,
} from './session-check.js';

const T = { ...SESSION_CHECK_DEFAULTS };
const MIN = 60_000;

/** The example report's words, as a tester copying it would submit them. */
const exampleText = reportText({
  keyFindings: (EXAMPLE_SUBMISSION.findings ?? []).map((f) => f.text),
  findingDetails: EXAMPLE_SUBMISSION.findings ?? [],
  requirementResponses: EXAMPLE_SUBMISSION.requirement_responses ?? [],
  generalFeedback: EXAMPLE_SUBMISSION.general_feedback ?? null,
});

/** Two honest testers of the same shop, in their own words (they notice some of the same things). */
const HONEST_A = `The menu button on my phone opens a list that covers the search box, so I could not search for shoes while it was open.
Sizes are shown in EU numbers only; I had to look up what a US 9 is before adding to the basket.
Checkout asked for my phone number twice, once for delivery and again for payment, which felt odd.
The delivery estimate says 3-5 days but the confirmation e-mail said 7 days. Which one is true?
Overall the photos are great and the product pages load fast on 4G.`;
const HONEST_B = `I liked the big product photos. Finding running shoes was easy from the home page banner.
Size conversion is missing: only European sizes, so I guessed and picked 42.
At checkout the form wanted my phone number in two places. I typed it in both and moved on.
The basket total jumped by $4.99 at the last step with no mention of shipping before that.
The site felt quick on my older Android phone and nothing broke.`;
/** B copied from A with a few words changed and a sentence added. */
const COPY_OF_A = `The menu button on my phone opens a list that covers the search box, so I could not search for sneakers while it was open.
Sizes are shown in EU numbers only; I had to look up what a US 9 is before adding to the basket.
Checkout asked for my phone number twice, once for delivery and again for payment, which felt strange.
The delivery estimate says 3-5 days but the confirmation e-mail said 7 days. Which one is true?
Overall the photos are great and the product pages load fast on 4G. Nice shop.`;

const base: SessionEvidence = {
  recordingRequired: true,
  recording: { durationMs: 6 * MIN + 12_000, silences: [], stills: [] },
  requirementsCount: 3,
  responses: [0, 1, 2].map((i) => ({ requirement_index: i, response_text: `Answer ${i}` })),
  findings: [{ at_ms: 30_000 }],
  text: HONEST_A,
  others: [HONEST_B],
};

describe('session check measures', () => {
  it('counts talk as the recording less its silences, overlapping silences once', () => {
    expect(
      talkMs(10_000, [
        { startMs: 0, endMs: 3000 },
        { startMs: 2000, endMs: 4000 },
        { startMs: 9000, endMs: 12_000 },
      ]),
    ).toBe(5000);
    expect(talkMs(10_000, [{ startMs: 0, endMs: 10_000 }])).toBe(0);
  });

  it('finds idle only where silence and a still screen overlap', () => {
    const silences = [
      { startMs: 0, endMs: 60_000 },
      { startMs: 100_000, endMs: 300_000 },
    ];
    const stills = [
      { startMs: 30_000, endMs: 200_000 },
      { startMs: 250_000, endMs: 290_000 },
    ];
    // 100-200 s is both silent and still; 0-30 s only silent; 60-100 s only still.
    expect(longestIdleMs(silences, stills)).toBe(100_000);
    expect(longestIdleMs(silences, [])).toBe(0);
  });

  it('covers a thing to check by an answer with text or a finding naming it', () => {
    expect(
      itemsCovered(
        3,
        [
          { requirement_index: 0, response_text: 'Yes, easy' },
          { requirement_index: 1, response_text: '   ' },
        ],
        [{ at_ms: null, requirement_index: 2 }],
      ),
    ).toBe(2);
  });
});

describe('originality (MinHash over three-word phrases)', () => {
  it('tells two honest reports of the same site apart from a lightly edited copy', () => {
    const honest = maxContainment(HONEST_B, [HONEST_A], T.minShingles)!;
    const copy = maxContainment(COPY_OF_A, [HONEST_A, HONEST_B], T.minShingles)!;
    expect(honest).toBeLessThan(0.2);
    expect(copy).toBeGreaterThanOrEqual(0.7);
    expect(honest).toBeLessThan(T.duplicateContainment);
    expect(copy).toBeGreaterThanOrEqual(T.duplicateContainment);
  });

  it('knows the example report: its text with a few lines of the tester’s own is a copy', () => {
    const copied = `${exampleText}\nI also tried it on my laptop.`;
    expect(maxContainment(copied, [exampleText], T.minShingles)!).toBeGreaterThanOrEqual(
      T.duplicateContainment,
    );
  });

  it('does not judge a text too short to tell', () => {
    expect(maxContainment('Checkout broke.', [HONEST_A], T.minShingles)).toBeNull();
  });
});

describe('evaluateSession', () => {
  it('passes an honest, spoken, covered session and says so in the Checked line', () => {
    const silences = [{ startMs: 0, endMs: 2 * MIN }]; // talking 4:12 of 6:12
    const out = evaluateSession({ ...base, recording: { ...base.recording!, silences } }, T);
    expect(out).toMatchObject({ verdict: 'pass', reasons: [] });
    expect(out.metrics).toMatchObject({ recordingMs: 372_000, talkPct: 68, itemsCovered: 3 });
    expect(checkedLine(out.metrics, out.reasons)).toBe(
      '6:12 recorded, 68% talking, 3 of 3 things checked, original text',
    );
  });

  it('fails a missing recording the job asked for, and a copy, whatever else', () => {
    expect(evaluateSession({ ...base, recording: null }, T)).toMatchObject({
      verdict: 'fail',
      reasons: ['no_recording'],
    });
    expect(evaluateSession({ ...base, text: COPY_OF_A, others: [HONEST_A] }, T)).toMatchObject({
      verdict: 'fail',
      reasons: ['copied_text'],
    });
  });

  it('makes one soft reason borderline and two a fail', () => {
    const silent = { durationMs: 6 * MIN, silences: [{ startMs: 0, endMs: 6 * MIN }], stills: [] };
    expect(evaluateSession({ ...base, recording: silent }, T)).toMatchObject({
      verdict: 'borderline',
      reasons: ['little_talk'],
    });
    const idle = { ...silent, stills: [{ startMs: MIN, endMs: 4 * MIN }] };
    expect(evaluateSession({ ...base, recording: idle }, T)).toMatchObject({
      verdict: 'fail',
      reasons: ['little_talk', 'idle_stretch'],
    });
  });

  it('judges length and moments only against the measured recording', () => {
    const short = { durationMs: 2 * MIN, silences: [], stills: [] };
    const out = evaluateSession({ ...base, recording: short, findings: [{ at_ms: 3 * MIN }] }, T);
    expect(out.reasons).toEqual(['recording_short', 'moment_outside']);
    // Not asked for: a short recording is fine.
    expect(
      evaluateSession({ ...base, recordingRequired: false, recording: short }, T).reasons,
    ).toEqual([]);
    // Unmeasured (no ffmpeg): nothing is claimed about it.
    const unmeasured = { durationMs: null, silences: [], stills: [] };
    expect(evaluateSession({ ...base, recording: unmeasured }, T).metrics).toMatchObject({
      recordingMs: null,
      talkPct: null,
    });
  });

  it('reads the verdict from the reasons alone', () => {
    expect(sessionVerdict([])).toBe('pass');
    expect(sessionVerdict(['unanswered'])).toBe('borderline');
    expect(sessionVerdict(['unanswered', 'moment_outside'])).toBe('fail');
    expect(sessionVerdict(['copied_text'])).toBe('fail');
  });
});
