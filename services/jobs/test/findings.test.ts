import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { JobView } from '@htm/contracts';
import {
  api,
  paidJob,
  poster,
  startHarness,
  tester,
  type Harness,
  type Person,
} from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('findings');
});
afterAll(async () => {
  await h?.close();
});

async function claimedJob(): Promise<{ job: JobView; p: Person; t: Person }> {
  const p = await poster(h);
  const t = await tester(h);
  const job = await paidJob(h, p);
  const r = await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token);
  if (r.status !== 200) throw new Error(`claim ${r.status}`);
  return { job, p, t };
}

function form(fields: Record<string, string>) {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}
const quick = (over: Record<string, string> = {}) =>
  form({
    feedback_text: 'The signup button is hidden below the fold on mobile.',
    key_finding_1: 'Signup button hard to find',
    ...over,
  });
const detailed = (over: Record<string, string> = {}) =>
  form({
    requirement_responses: JSON.stringify([
      { requirement_index: 0, response_text: 'Yes, top right corner of the page.' },
    ]),
    device_used: 'iPhone 13',
    browser_used: 'Safari 17',
    key_findings_bullet_1: 'Button is small',
    key_findings_bullet_2: 'E-mail took 2 minutes',
    key_findings_bullet_3: 'Footer links broken',
    ...over,
  });

async function submissionRows() {
  const [r] = await h.svc.ctx.dbHandle.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM jobs.submissions',
  );
  return r.n;
}

describe('structured findings, Quick report', () => {
  it('stores each finding with its details in finding order, skipping an empty finding 2', async () => {
    const { job, p, t } = await claimedJob();
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      t.token,
      quick({
        key_finding_1_severity: 'major',
        key_finding_1_steps: '1. Open /signup on a phone\n2. Scroll',
        key_finding_1_expected: 'The button is visible',
        key_finding_1_actual: 'It is below the fold',
        key_finding_1_at_ms: '4200',
        key_finding_3: 'Footer link to terms is broken',
        key_finding_3_severity: 'Cosmetic',
      }),
    );
    expect(r.status).toBe(201);
    const want = [
      {
        text: 'Signup button hard to find',
        severity: 'major',
        steps: '1. Open /signup on a phone\n2. Scroll',
        expected: 'The button is visible',
        actual: 'It is below the fold',
        at_ms: 4200,
        requirement_index: null,
      },
      {
        text: 'Footer link to terms is broken',
        severity: 'cosmetic',
        steps: null,
        expected: null,
        actual: null,
        at_ms: null,
        requirement_index: null,
      },
    ];
    expect(r.body.submission.findings).toEqual(want);
    expect(r.body.submission.recording).toBeNull();
    // The poster reads the same findings while reviewing (before accepting), like the bullets.
    const read = await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token);
    expect(read.status).toBe(200);
    expect(read.body.locked).toBe(true);
    expect(read.body.findings).toEqual(want);
    expect(read.body.human_preview.key_findings_bullets).toEqual([
      'Signup button hard to find',
      'Footer link to terms is broken',
    ]);
  });

  it('answers 400 naming the field for each bad value and stores nothing', async () => {
    const { job, t } = await claimedJob();
    const before = await submissionRows();
    const cases: Array<[Record<string, string>, string, string]> = [
      [
        { key_finding_1_severity: 'critical' },
        'key_finding_1_severity',
        'Finding 1: severity must be blocker, major, minor or cosmetic',
      ],
      [
        { key_finding_1_steps: 'x'.repeat(1001) },
        'key_finding_1_steps',
        'Finding 1: steps to reproduce must be 1000 characters or less',
      ],
      [
        { key_finding_1_expected: 'x'.repeat(301) },
        'key_finding_1_expected',
        'Finding 1: what you expected must be 300 characters or less',
      ],
      [
        { key_finding_1_actual: 'x'.repeat(301) },
        'key_finding_1_actual',
        'Finding 1: what happened must be 300 characters or less',
      ],
      [
        { key_finding_1_at_ms: '-5' },
        'key_finding_1_at_ms',
        'Finding 1: the moment must be a whole number of milliseconds from 0',
      ],
      [
        { key_finding_1_at_ms: '1.5' },
        'key_finding_1_at_ms',
        'Finding 1: the moment must be a whole number of milliseconds from 0',
      ],
      [
        { key_finding_2_severity: 'minor' },
        'key_finding_2',
        'Finding 2: write the finding itself before its details',
      ],
    ];
    for (const [over, field, message] of cases) {
      const r = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, quick(over));
      expect({ status: r.status, detail: r.body.detail, errors: r.body.errors?.[field] }).toEqual({
        status: 400,
        detail: message,
        errors: [message],
      });
    }
    expect(await submissionRows()).toBe(before);
  });

  it('keeps the existing messages first: a missing finding is still the spec message', async () => {
    const { job, t } = await claimedJob();
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      t.token,
      quick({ key_finding_1: '', key_finding_1_severity: 'major' }),
    );
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe('At least one key finding (min 5 characters) is required');
  });
});

describe('structured findings, Detailed report', () => {
  it('stores details per bullet and answers 400 for a bad one', async () => {
    const { job, p, t } = await claimedJob();
    const bad = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submissions`,
      t.token,
      detailed({ key_findings_bullet_3_severity: 'meh' }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.errors.key_findings_bullet_3_severity).toEqual([
      'Finding 3: severity must be blocker, major, minor or cosmetic',
    ]);

    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submissions`,
      t.token,
      detailed({
        key_findings_bullet_2_severity: 'blocker',
        key_findings_bullet_2_steps: 'Sign up, wait',
        key_findings_bullet_3_actual: '404',
      }),
    );
    expect(r.status).toBe(201);
    const read = await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token);
    expect(read.body.findings).toEqual([
      {
        text: 'Button is small',
        severity: null,
        steps: null,
        expected: null,
        actual: null,
        at_ms: null,
        requirement_index: null,
      },
      {
        text: 'E-mail took 2 minutes',
        severity: 'blocker',
        steps: 'Sign up, wait',
        expected: null,
        actual: null,
        at_ms: null,
        requirement_index: null,
      },
      {
        text: 'Footer links broken',
        severity: null,
        steps: null,
        expected: null,
        actual: '404',
        at_ms: null,
        requirement_index: null,
      },
    ]);
  });
});

describe('things to check: findings, task answers and SUS (issue #51)', () => {
  const tasks = JSON.stringify([
    { requirement_index: 0, outcome: 'done', seq: 6, minutes: 3 },
    { requirement_index: 1, outcome: 'not_done', seq: '2' },
  ]);
  const sus = JSON.stringify([4, 2, 3, 3, 3, 2, 4, 3, 3, 5]);

  it("both variants store the finding's thing to check, the task answers and SUS; the poster sees them once accepted", async () => {
    for (const variant of ['quick', 'detailed'] as const) {
      const { job, p, t } = await claimedJob();
      const prefix = variant === 'quick' ? 'key_finding_1' : 'key_findings_bullet_1';
      const fields = { [`${prefix}_requirement_index`]: '1', task_answers: tasks, sus };
      const r = await api(
        h,
        'POST',
        `/api/jobs/${job.id}/${variant === 'quick' ? 'submit-work' : 'submissions'}`,
        t.token,
        variant === 'quick' ? quick(fields) : detailed(fields),
      );
      expect(r.status).toBe(201);
      expect(r.body.submission.findings[0].requirement_index).toBe(1);
      const answers = [
        { requirement_index: 0, outcome: 'done', seq: 6, minutes: 3 },
        { requirement_index: 1, outcome: 'not_done', seq: 2, minutes: null },
      ];
      expect(r.body.submission.task_answers).toEqual(answers);
      expect(r.body.submission.sus).toEqual([4, 2, 3, 3, 3, 2, 4, 3, 3, 5]);
      // Locked like the checklist answers until the poster accepts; the finding's place is not.
      const locked = await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token);
      expect(locked.body).toMatchObject({ locked: true, task_answers: null, sus: null });
      expect(locked.body.findings[0].requirement_index).toBe(1);
      const accept = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {
        decision: 'accept',
      });
      expect(accept.status).toBe(200);
      const open = await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token);
      expect(open.body).toMatchObject({ locked: false, task_answers: answers });
      expect(open.body.sus).toHaveLength(10);
    }
  });

  it('keeps both forms working without them, and answers 400 naming the field for a bad one, storing nothing', async () => {
    const { job, t } = await claimedJob();
    const before = await submissionRows();
    const cases: Array<[Record<string, string>, string, string]> = [
      [
        { key_finding_1_requirement_index: '2' },
        'key_finding_1_requirement_index',
        "Finding 1: the thing to check must be one of this job's things to check",
      ],
      [
        { task_answers: JSON.stringify([{ requirement_index: 0, seq: 8 }]) },
        'task_answers.0.seq',
        'How easy it was must be a whole number from 1 to 7',
      ],
      [
        { task_answers: JSON.stringify([{ requirement_index: 0, outcome: 'maybe' }]) },
        'task_answers.0.outcome',
        'Did you get it done: choose done, partly or not done',
      ],
      [
        { task_answers: JSON.stringify([{ requirement_index: 5, outcome: 'done' }]) },
        'task_answers',
        "Each task answer must name a different one of this job's things to check",
      ],
      [
        { task_answers: '{not json' },
        'task_answers',
        'Task answers must be a list of {requirement_index, outcome, seq, minutes} (all but the index optional)',
      ],
      [
        { sus: JSON.stringify([1, 2, 3]) },
        'sus',
        'The usability questionnaire needs all 10 answers, each a whole number from 1 to 5 (or none)',
      ],
    ];
    for (const [over, field, message] of cases) {
      const r = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, quick(over));
      expect({ status: r.status, detail: r.body.detail, errors: r.body.errors?.[field] }).toEqual({
        status: 400,
        detail: message,
        errors: [message],
      });
    }
    expect(await submissionRows()).toBe(before);
    const plain = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, quick());
    expect(plain.status).toBe(201);
    expect(plain.body.submission).toMatchObject({ task_answers: [], sus: null });
  });
});
