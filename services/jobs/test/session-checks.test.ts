/**
 * Session checks ("Every session checked", step 1): fixtures made here (ffmpeg lavfi for the
 * picture and for silence, espeak-ng for speech, muxed into WebM as MediaRecorder writes it),
 * uploaded over tus and submitted like a tester's, then checked by the jobs process's
 * session-check worker with real ffmpeg. Thresholds are short through configuration (a few
 * seconds per fixture): a silent recording fails talk time, a spoken one passes, a frozen one
 * fails idle, a copy of another report (or of the example report) fails originality, an honest
 * report passes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JobView } from '@htm/contracts';
import { EXAMPLE_SUBMISSION } from '@htm/contracts/example-report';
import {
  admin,
  api,
  outboxEvents,
  paidJob,
  poster,
  startHarness,
  tester,
  waitFor,
  type Harness,
  uploadRecording,
  type Person,
} from './helpers.js';

let h: Harness;
const fixtures: Record<'spoken' | 'silent' | 'frozen', Buffer> = {} as never;

function ffmpeg(args: string[]) {
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

/** Short thresholds (a few seconds per fixture), the checks on, run when a test asks. */
const CHECKS_ENV = {
  SESSION_CHECK_MIN_RECORDING_MS: '3000',
  SESSION_CHECK_MAX_IDLE_MS: '2500',
  SESSION_CHECK_SILENCE_MIN_MS: '1000',
  SESSION_CHECKS: 'on',
  // The test drives the checks itself (checkDue); the poll stays out of its way.
  SESSION_CHECK_POLL_MS: '3600000',
};

beforeAll(async () => {
  h = await startHarness('session_checks', CHECKS_ENV);
  const dir = mkdtempSync(path.join(tmpdir(), 'session-fixtures-'));
  const speech = path.join(dir, 'speech.wav');
  execFileSync('espeak-ng', [
    '-w',
    speech,
    'I open the sign up page. The button is at the bottom, I almost missed it.',
  ]);
  const webm = (name: keyof typeof fixtures, video: string[], audio: string[], seconds: number) => {
    const out = path.join(dir, `${name}.webm`);
    ffmpeg([
      ...video,
      ...audio,
      '-map',
      '0:v',
      '-map',
      '1:a',
      '-t',
      String(seconds),
      '-c:v',
      'libvpx',
      '-b:v',
      '100k',
      '-c:a',
      'libopus',
      '-live',
      '1',
      out,
    ]);
    fixtures[name] = readFileSync(out);
  };
  const moving = ['-f', 'lavfi', '-i', 'testsrc=duration=6:size=160x120:rate=10'];
  const silence = ['-f', 'lavfi', '-i', 'anullsrc=r=48000:cl=mono'];
  webm('spoken', moving, ['-i', speech], 5);
  webm('silent', moving, silence, 5);
  webm('frozen', ['-f', 'lavfi', '-i', 'color=c=gray:size=160x120:rate=10:duration=6'], silence, 6);
});
afterAll(async () => {
  await h?.close();
});

/** Uploads a recording over tus as the web app does; returns its id once measured. */
async function upload(jobId: string, token: string, data: Buffer): Promise<string> {
  const id = await uploadRecording(h, jobId, token, data);
  await waitFor(async () => {
    const [row] = await h.svc.ctx.dbHandle.query<{ duration_ms: number | null }>(
      'SELECT duration_ms FROM jobs.recordings WHERE id = $1',
      [id],
    );
    return row?.duration_ms !== null;
  }, 'recording remuxed and measured');
  return id;
}

const HONEST = {
  feedback_text:
    'The sign up form asks for a password twice but only shows the rules after the first failure. I tried three times before I understood it wanted a symbol.',
  key_finding_1: 'Password rules appear only after a failed try',
  key_finding_2: 'The sign up button sits below the cookie banner on a phone',
};
const responses = JSON.stringify([
  { requirement_index: 0, response_text: 'Yes, under the cookie banner at the bottom.' },
  { requirement_index: 1, response_text: 'It arrived after about two minutes, in spam.' },
]);

async function claimed(p: Person, t: Person, over: Record<string, unknown> = {}): Promise<JobView> {
  const job = await paidJob(h, p, over);
  expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
  return job;
}

/** Submits a Quick report (with the checklist answered unless told otherwise); its submission id. */
async function submit(job: JobView, t: Person, fields: Record<string, string>): Promise<string> {
  const f = new FormData();
  for (const [k, v] of Object.entries({ requirement_responses: responses, ...fields }))
    f.append(k, v);
  const r = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, f);
  expect(r.status).toBe(201);
  return r.body.submission.id;
}

/** Submits a Quick report (with the checklist answered unless told otherwise) and waits for its check. */
async function submitAndCheck(
  job: JobView,
  t: Person,
  fields: Record<string, string>,
): Promise<{
  verdict: string;
  reasons: string[];
  metrics: Record<string, number | null>;
  submissionId: string;
}> {
  const submissionId = await submit(job, t, fields);
  const row = await waitFor(async () => {
    await h.svc.sessionChecks.checkDue();
    const [c] = await h.svc.ctx.dbHandle.query<{
      status: string;
      verdict: string;
      reasons: string[];
      metrics: Record<string, number | null>;
    }>(
      'SELECT status, verdict, reasons, metrics FROM jobs.session_checks WHERE submission_id = $1',
      [submissionId],
    );
    return c?.status === 'done' ? c : undefined;
  }, 'session checked');
  // The outcome is announced once, with what was measured.
  const events = (await outboxEvents(h, 'SessionChecked', job.id)).filter(
    (e) => e.data.submissionId === submissionId,
  );
  expect(events).toHaveLength(1);
  expect(events[0].data).toMatchObject({
    verdict: row.verdict,
    reasons: row.reasons,
    metrics: row.metrics,
    testerId: t.id,
  });
  return { ...row, submissionId };
}

/** A report made of the example report's words: a known copy. */
const EXAMPLE_COPY = {
  feedback_text: EXAMPLE_SUBMISSION.general_feedback!.slice(0, 1000),
  key_finding_1: EXAMPLE_SUBMISSION.findings![0].text,
};

/** A job whose report copied the example report: failed, held, the job open again. */
async function failedCopy() {
  const p = await poster(h);
  const t = await tester(h);
  const job = await claimed(p, t);
  const out = await submitAndCheck(job, t, EXAMPLE_COPY);
  expect(out.verdict).toBe('fail');
  return { p, t, job, out, submissionId: out.submissionId };
}

describe('recordings', () => {
  it('passes a spoken recording: its length and talk time measured from the audio', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const job = await claimed(p, t, { recording_required: true });
    const recording_id = await upload(job.id, t.token, fixtures.spoken);
    const out = await submitAndCheck(job, t, { ...HONEST, recording_id });
    expect(out).toMatchObject({ verdict: 'pass', reasons: [] });
    expect(out.metrics.recordingMs).toBeGreaterThanOrEqual(4500);
    expect(out.metrics.recordingMs).toBeLessThanOrEqual(5500);
    expect(out.metrics.talkPct).toBeGreaterThanOrEqual(30);
    expect(out.metrics).toMatchObject({ itemsTotal: 2, itemsCovered: 2, longestIdleMs: 0 });
    // The poster's report carries the Checked line with the measured facts.
    const seen = await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token);
    expect(seen.status).toBe(200);
    expect(seen.body.session_check).toEqual({
      status: 'done',
      verdict: 'pass',
      line: `0:05 recorded, ${out.metrics.talkPct}% talking, 2 of 2 things checked, original text`,
      reasons: [],
      replacement_available: false,
    });
  });

  it('fails a silent recording on talk time (the screen moves, so it is not idle)', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const job = await claimed(p, t, { recording_required: true });
    const recording_id = await upload(job.id, t.token, fixtures.silent);
    const out = await submitAndCheck(job, t, { ...HONEST, recording_id });
    expect(out.reasons).toEqual(['little_talk']);
    expect(out.verdict).toBe('borderline');
    expect(out.metrics).toMatchObject({ talkPct: 0, longestIdleMs: 0 });
    // Borderline: delivered with the warning, and the poster may get a free replacement once.
    const seen = await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token);
    expect(seen.body.session_check).toMatchObject({
      verdict: 'borderline',
      reasons: [{ code: 'little_talk', text: 'The tester talks for little of the recording.' }],
      replacement_available: true,
    });
    expect((await api(h, 'POST', `/api/jobs/${job.id}/replacement`, t.token)).status).toBe(403);
    const replaced = await api(h, 'POST', `/api/jobs/${job.id}/replacement`, p.token);
    expect(replaced.status).toBe(200);
    expect(replaced.body.job).toMatchObject({
      status: 'open',
      payment_status: 'paid',
      tester_id: null,
    });
    const [event] = await outboxEvents(h, 'ReplacementRequested', job.id);
    expect(event.data).toMatchObject({
      requestedBy: 'poster',
      testerId: t.id,
      reasons: ['little_talk'],
    });
    // The next tester's report is borderline too: the free replacement was used.
    const next = await tester(h);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, next.token)).status).toBe(200);
    const again = await upload(job.id, next.token, fixtures.silent);
    const second = await submitAndCheck(job, next, {
      ...HONEST,
      feedback_text:
        'Signing up worked, although the password rules were only shown after an error message appeared twice.',
      key_finding_1: 'Password rules hidden until an error',
      key_finding_2: 'Cookie banner covers the button',
      requirement_responses: JSON.stringify([
        { requirement_index: 0, response_text: 'Found it after closing the cookie notice.' },
        { requirement_index: 1, response_text: 'Yes, the confirmation mail came quickly.' },
      ]),
      recording_id: again,
    });
    expect(second.verdict).toBe('borderline');
    const refused = await api(h, 'POST', `/api/jobs/${job.id}/replacement`, p.token);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('replacement_used');
  });

  it('fails a frozen, silent recording on its idle stretch', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const job = await claimed(p, t, { recording_required: true });
    const recording_id = await upload(job.id, t.token, fixtures.frozen);
    const out = await submitAndCheck(job, t, { ...HONEST, recording_id });
    expect(out.reasons).toEqual(['little_talk', 'idle_stretch']);
    expect(out.verdict).toBe('fail');
    expect(out.metrics.longestIdleMs).toBeGreaterThan(2500);
    // Failed: held from the poster, the job back in Available Jobs on the same payment.
    const [row] = await h.svc.ctx.dbHandle.query<{ held: boolean }>(
      'SELECT held FROM jobs.submissions WHERE id = $1',
      [out.submissionId],
    );
    expect(row.held).toBe(true);
    const seen = await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token);
    expect(seen.status).toBe(404);
    const mine = await api(h, 'GET', '/api/jobs', p.token);
    expect(mine.body.jobs.find((j) => j.id === job.id)).toMatchObject({
      status: 'open',
      payment_status: 'paid',
      tester_id: null,
    });
    const [event] = await outboxEvents(h, 'ReplacementRequested', job.id);
    expect(event.data).toMatchObject({
      requestedBy: 'check',
      submissionId: out.submissionId,
      reasons: ['little_talk', 'idle_stretch'],
    });
    // The tester reads each reason in plain words.
    const checks = await api<{ checks: Array<Record<string, unknown>> }>(
      h,
      'GET',
      '/api/tester/session-checks',
      t.token,
    );
    expect(checks.body.checks).toEqual([
      expect.objectContaining({
        job_id: job.id,
        verdict: 'fail',
        held: true,
        reasons: [
          {
            code: 'little_talk',
            text: 'You talked for too little of the recording: say what you see and think as you go.',
          },
          {
            code: 'idle_stretch',
            text: 'The recording has a long stretch with no talking and nothing happening on screen.',
          },
        ],
      }),
    ]);
    // Another tester takes it.
    const next = await tester(h);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, next.token)).status).toBe(200);
  });

  it('fails a report without the recording its job asks for', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const job = await claimed(p, t, { recording_required: true });
    const out = await submitAndCheck(job, t, HONEST);
    expect(out).toMatchObject({ verdict: 'fail', reasons: ['no_recording'] });
  });
});

describe('coverage and originality', () => {
  it("passes an honest report, then fails the same tester's copy of it on another job", async () => {
    const p = await poster(h);
    const t = await tester(h);
    const first = await claimed(p, t);
    const honest = await submitAndCheck(first, t, HONEST);
    expect(honest).toMatchObject({ verdict: 'pass', reasons: [] });
    expect(honest.metrics.maxContainment).toBeLessThan(0.5);

    const second = await claimed(p, t);
    const copy = await submitAndCheck(second, t, {
      ...HONEST,
      feedback_text: `${HONEST.feedback_text} Otherwise fine.`,
    });
    expect(copy).toMatchObject({ verdict: 'fail', reasons: ['copied_text'] });
    expect(copy.metrics.maxContainment).toBeGreaterThanOrEqual(0.5);
  });

  it("fails a copy of the example report's text", async () => {
    const { out } = await failedCopy();
    expect(out.reasons).toContain('copied_text');
    expect(out.verdict).toBe('fail');
  });

  it('counts the things to check left unanswered as one soft reason', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const job = await claimed(p, t);
    const out = await submitAndCheck(job, t, {
      ...HONEST,
      feedback_text:
        'Everything on the page loaded quickly for me, and the colours are easy to read in sunlight.',
      requirement_responses: JSON.stringify([
        { requirement_index: 0, response_text: 'Yes, it is at the bottom of the form.' },
      ]),
    });
    expect(out).toMatchObject({ verdict: 'borderline', reasons: ['unanswered'] });
    expect(out.metrics).toMatchObject({ itemsTotal: 2, itemsCovered: 1 });
  });
});

describe('held from the poster until checked', () => {
  /** The webhook deliveries written for the endpoint, by type. */
  const deliveries = async (endpointId: string) =>
    h.svc.ctx.dbHandle.query<{ event_type: string; payload: { data: Record<string, unknown> } }>(
      'SELECT event_type, payload FROM jobs.webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at',
      [endpointId],
    );

  it('shows the poster nothing of a report (API, summary, share, review, webhook) until its check passes', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const hook = await api<{ id: string }>(h, 'POST', '/api/webhook-endpoints', p.token, {
      url: 'https://hooks.example.com/in',
      events: ['job.submitted', 'session.checked', 'replacement.requested'],
    });
    expect(hook.status).toBe(201);
    const job = await claimed(p, t);
    const submissionId = await submit(job, t, {
      ...HONEST,
      feedback_text:
        'The menu opens on a tap but closes again when I scroll, so I could not reach the prices page on my phone.',
      key_finding_1: 'Menu closes while scrolling on a phone',
      key_finding_2: 'Prices page hard to reach',
    });
    const [submitted] = await outboxEvents(h, 'WorkSubmitted', job.id);
    expect(submitted.data).toMatchObject({ submissionId, awaitsCheck: true });

    // Before the check: the report is not there for the poster, whatever the way in.
    const early = await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token);
    expect(early.status).toBe(404);
    expect(early.body).toMatchObject({
      code: 'report_checking',
      detail:
        'The tester has sent their report. We check every session before you see it: it will be here in a few minutes.',
    });
    const listed = await api(h, 'GET', '/api/jobs', p.token);
    expect(listed.body.jobs.find((j) => j.id === job.id)).toMatchObject({
      status: 'submitted',
      report_checking: true,
    });
    const accept = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {
      decision: 'accept',
    });
    expect(accept.status).toBe(409);
    expect(accept.body.code).toBe('report_checking');
    expect((await api(h, 'GET', `/api/jobs/${job.id}/summary`, p.token)).status).toBe(404);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/share`, p.token)).status).toBe(409);
    expect((await api(h, 'GET', `/api/jobs/${job.id}/report.pdf`, p.token)).status).toBe(404);
    expect(await deliveries(hook.body.id)).toEqual([]);
    // The tester and the admin see it, with the check still running.
    const own = await api(h, 'GET', `/api/jobs/${job.id}/submission`, t.token);
    expect(own.body.session_check).toMatchObject({ status: 'checking', verdict: null });

    // Checked: delivered, announced once, and the webhooks follow.
    await waitFor(async () => {
      await h.svc.sessionChecks.checkDue();
      return (await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token)).status === 200;
    }, 'the report delivered');
    const [checked] = (await outboxEvents(h, 'SessionChecked', job.id)).filter(
      (e) => e.data.submissionId === submissionId,
    );
    expect(checked.data).toMatchObject({ verdict: 'pass', delivered: true });
    const after = await api(h, 'GET', '/api/jobs', p.token);
    expect(after.body.jobs.find((j) => j.id === job.id)?.report_checking).toBeUndefined();
    expect(
      (await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, { decision: 'accept' })).status,
    ).toBe(200);
    const sent = await deliveries(hook.body.id);
    expect(sent.map((d) => d.event_type)).toEqual(
      expect.arrayContaining(['job.submitted', 'session.checked']),
    );
    expect(sent.find((d) => d.event_type === 'session.checked')?.payload.data).toMatchObject({
      job_id: job.id,
      verdict: 'pass',
      checked_line: '2 of 2 things checked, original text',
      reasons: [],
    });

    // A copy fails: the poster's endpoint hears of the replacement, never of the report.
    const copier = await tester(h);
    const second = await claimed(p, copier);
    await submitAndCheck(second, copier, EXAMPLE_COPY);
    const forSecond = (await deliveries(hook.body.id)).filter(
      (d) => d.payload.data.job_id === second.id,
    );
    expect(forSecond.map((d) => d.event_type).sort()).toEqual([
      'replacement.requested',
      'session.checked',
    ]);
    const replacement = forSecond.find((d) => d.event_type === 'replacement.requested')!;
    expect(replacement.payload.data).toMatchObject({
      status: 'open',
      requested_by: 'check',
      reasons: expect.arrayContaining(['The report repeats the text of another report.']),
    });
    expect(Date.parse(String(replacement.payload.data.expected_by))).toBeGreaterThan(
      Date.now() + 47 * 3_600_000,
    );
  });
});

describe("the admin's queue of failed sessions, and the tester's one appeal", () => {
  type Queue = { sessions: Array<Record<string, unknown> & { submission_id: string }> };

  it('lists a failed session with its measurements; the failing tester cannot take its replacement; Release to owner gives the report back once', async () => {
    const a = await admin(h);
    const { p, t, job, submissionId } = await failedCopy();
    const queue = await api<Queue>(h, 'GET', '/api/admin/session-checks', a.token);
    expect(queue.status).toBe(200);
    expect(queue.body.sessions.find((x) => x.submission_id === submissionId)).toMatchObject({
      job_id: job.id,
      tester_id: t.id,
      job_status: 'open',
      reasons: expect.arrayContaining([
        { code: 'copied_text', text: 'The report repeats the text of another report.' },
      ]),
      line: expect.stringMatching(/text found in another report$/),
      key_findings: [EXAMPLE_SUBMISSION.findings![0].text],
      appeal: null,
      decision: null,
    });
    expect((await api(h, 'GET', '/api/admin/session-checks', t.token)).status).toBe(403);
    // The failing tester neither sees nor takes the replacement.
    const claim = await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token);
    expect(claim.status).toBe(409);
    expect(claim.body.code).toBe('session_replaced');
    const listed = await api(h, 'GET', '/api/tester/available-jobs', t.token);
    expect(listed.body.jobs.map((j: { id: string }) => j.id)).not.toContain(job.id);

    const released = await api<{ delivered: boolean; session: Record<string, unknown> }>(
      h,
      'POST',
      `/api/admin/session-checks/${submissionId}/release`,
      a.token,
    );
    expect(released.status).toBe(200);
    expect(released.body).toMatchObject({
      delivered: true,
      session: { job_status: 'submitted', decision: { decision: 'released', by: 'admin' } },
    });
    // The owner reads it as submitted, with the tester holding the job again.
    const seen = await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token);
    expect(seen.status).toBe(200);
    expect(seen.body.id).toBe(submissionId);
    const [back] = (await outboxEvents(h, 'WorkSubmitted', job.id)).filter(
      (e) => e.data.releasedBy,
    );
    expect(back.data).toMatchObject({ submissionId, testerId: t.id, releasedBy: 'admin' });
    const [decided] = await outboxEvents(h, 'SessionDecided', job.id);
    expect(decided.data).toMatchObject({
      decision: 'released',
      by: 'admin',
      delivered: true,
      actorId: a.id,
    });
    const again = await api(
      h,
      'POST',
      `/api/admin/session-checks/${submissionId}/confirm`,
      a.token,
    );
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('session_decided');
    const held = await api<Queue>(h, 'GET', '/api/admin/session-checks', a.token);
    expect(held.body.sessions.map((x) => x.submission_id)).not.toContain(submissionId);
  });

  it('counts a failed session as a strike only when the admin confirms it; the appeal then releases it and takes the strike back', async () => {
    const a = await admin(h);
    const { t, job, submissionId } = await failedCopy();
    const strikes = async () =>
      h.svc.ctx.dbHandle.query<{ reason: string; overturned_at: Date | null }>(
        'SELECT reason, overturned_at FROM jobs.strikes WHERE tester_id = $1 AND job_id = $2',
        [t.id, job.id],
      );
    expect(await strikes()).toEqual([]);
    // The tester's marks: the failed check, appealable.
    const marks = await api<{ items: Array<Record<string, unknown>> }>(
      h,
      'GET',
      '/api/appeals',
      t.token,
    );
    expect(marks.body.items).toEqual([
      expect.objectContaining({
        job_id: job.id,
        kind: 'session_check',
        reason: expect.stringMatching(/^Your report did not pass the checks: /),
        overturned: false,
        appeal: null,
      }),
    ]);
    const confirmed = await api(
      h,
      'POST',
      `/api/admin/session-checks/${submissionId}/confirm`,
      a.token,
    );
    expect(confirmed.status).toBe(200);
    expect(await strikes()).toEqual([{ reason: 'session_failed', overturned_at: null }]);
    const [strike] = await outboxEvents(h, 'TesterStrikeRecorded', t.id);
    expect(strike.data).toMatchObject({ jobId: job.id, strikes: 1 });
    // Another tester takes the replacement meanwhile.
    const next = await tester(h);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, next.token)).status).toBe(200);

    // One appeal: of the failed check (its strike is the same thing).
    const filed = await api<{ appeal: { id: string; kind: string } }>(
      h,
      'POST',
      '/api/appeals',
      t.token,
      {
        job_id: job.id,
        kind: 'strike',
        message: 'I wrote this report myself while testing the shop today.',
      },
    );
    expect(filed.status).toBe(201);
    expect(filed.body.appeal).toMatchObject({ kind: 'session_check', status: 'open' });
    const twice = await api(h, 'POST', '/api/appeals', t.token, {
      job_id: job.id,
      kind: 'session_check',
      message: 'Please look again at my report, it is my own work.',
    });
    expect(twice.status).toBe(409);
    const queue = await api<Queue>(h, 'GET', '/api/admin/session-checks?status=decided', a.token);
    expect(queue.body.sessions.find((x) => x.submission_id === submissionId)).toMatchObject({
      decision: { decision: 'confirmed' },
      appeal: { status: 'open' },
    });
    const decided = await api(
      h,
      'POST',
      `/api/admin/appeals/${filed.body.appeal.id}/decision`,
      a.token,
      { decision: 'overturn', note: 'Our check was wrong.' },
    );
    expect(decided.status).toBe(200);
    // Released without reaching the owner (the replacement is taken); the strike is gone.
    expect(await strikes()).toEqual([
      { reason: 'session_failed', overturned_at: expect.any(Date) },
    ]);
    const [appealed] = await outboxEvents(h, 'AppealDecided', t.id);
    expect(appealed.data).toMatchObject({
      kind: 'session_check',
      decision: 'overturn',
      strikeOverturned: true,
    });
    const [released] = (await outboxEvents(h, 'SessionDecided', job.id)).filter(
      (e) => e.data.decision === 'released',
    );
    expect(released.data).toMatchObject({ by: 'appeal', delivered: false });
    const checks = await api<{ checks: Array<Record<string, unknown>> }>(
      h,
      'GET',
      '/api/tester/session-checks',
      t.token,
    );
    expect(checks.body.checks.find((c) => c.job_id === job.id)).toMatchObject({
      released: true,
      confirmed: true,
    });
  });

  it('bad ids and unknown sessions answer 404; only the admin decides', async () => {
    const a = await admin(h);
    const { t, submissionId } = await failedCopy();
    expect(
      (await api(h, 'POST', `/api/admin/session-checks/${submissionId}/release`, t.token)).status,
    ).toBe(403);
    const unknown = await api(
      h,
      'POST',
      '/api/admin/session-checks/00000000-0000-4000-8000-000000000000/confirm',
      a.token,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('session_not_found');
    expect((await api(h, 'POST', '/api/admin/session-checks/nope/release', a.token)).status).toBe(
      404,
    );
    expect((await api(h, 'GET', '/api/admin/session-checks?status=all', a.token)).status).toBe(400);
  });
});

describe('on the embedded database (PGlite, one connection, as npm start runs it)', () => {
  // The same helpers against a PGlite harness for this block: any second connection opened inside
  // a transaction (the check's delivery, a decision, an appeal) would hang here.
  let postgres: Harness;
  beforeAll(async () => {
    postgres = h;
    h = await startHarness('session_checks_pglite', CHECKS_ENV, { pglite: true });
  });
  afterAll(async () => {
    await h?.close();
    h = postgres;
  });

  it('holds a report until its check delivers it; an accepted appeal gives a failed one back to its owner, who accepts it', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const job = await claimed(p, t);
    await submit(job, t, {
      ...HONEST,
      feedback_text:
        'The search box finds cakes by name but not by flavour, so chocolate showed nothing at all.',
      key_finding_1: 'Search ignores flavours',
    });
    expect((await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token)).body.code).toBe(
      'report_checking',
    );
    await waitFor(async () => {
      await h.svc.sessionChecks.checkDue();
      return (await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token)).status === 200;
    }, 'the report delivered');

    const a = await admin(h);
    const failed = await failedCopy();
    expect(
      (await api(h, 'POST', `/api/admin/session-checks/${failed.submissionId}/confirm`, a.token))
        .status,
    ).toBe(200);
    const filed = await api<{ appeal: { id: string } }>(h, 'POST', '/api/appeals', failed.t.token, {
      job_id: failed.job.id,
      kind: 'session_check',
      message: 'Every word of this report is mine; I tested the shop this morning.',
    });
    expect(filed.status).toBe(201);
    const decided = await api(
      h,
      'POST',
      `/api/admin/appeals/${filed.body.appeal.id}/decision`,
      a.token,
      { decision: 'overturn' },
    );
    expect(decided.status).toBe(200);
    const back = await api(h, 'GET', `/api/jobs/${failed.job.id}/submission`, failed.p.token);
    expect(back.status).toBe(200);
    expect(
      (
        await api(h, 'POST', `/api/jobs/${failed.job.id}/review`, failed.p.token, {
          decision: 'accept',
        })
      ).status,
    ).toBe(200);
    const [accepted] = await outboxEvents(h, 'SubmissionAccepted', failed.job.id);
    expect(accepted.data).toMatchObject({ testerId: failed.t.id, acceptedBy: 'poster' });
    const [appealed] = await outboxEvents(h, 'AppealDecided', failed.t.id);
    expect(appealed.data).toMatchObject({ kind: 'session_check', strikeOverturned: true });
  });
});
