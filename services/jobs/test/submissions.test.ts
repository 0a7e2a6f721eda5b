import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { mintServiceToken } from '@htm/service-kit';
import type { JobView } from '@htm/contracts';
import {
  admin,
  api,
  outboxEvents,
  paidJob,
  poster,
  SECRET,
  siteCheckFailed,
  startHarness,
  tester,
  type Harness,
  type OwnSubmission,
  type Person,
} from './helpers.js';

let h: Harness;
let png: Buffer;
beforeAll(async () => {
  h = await startHarness('subs');
  // a real 800x600 PNG of noise (big enough that the preview is clearly smaller)
  const raw = randomBytes(800 * 600 * 3);
  png = await sharp(raw, { raw: { width: 800, height: 600, channels: 3 } })
    .png()
    .toBuffer();
});
afterAll(async () => {
  await h?.close();
});

const filesRoot = () => path.join(h.uploadDir, 'files');
function storedFiles(): string[] {
  if (!existsSync(filesRoot())) return [];
  return readdirSync(filesRoot(), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name));
}
async function counts() {
  const [r] = await h.svc.ctx.dbHandle.query<{ s: number; f: number }>(
    'SELECT (SELECT count(*)::int FROM jobs.submissions) AS s, (SELECT count(*)::int FROM jobs.files) AS f',
  );
  return { ...r, disk: storedFiles().length };
}

async function claimedJob(
  over: Record<string, unknown> = {},
): Promise<{ job: JobView; p: Person; t: Person }> {
  const p = await poster(h);
  const t = await tester(h, { name: 'Sam Submitter' });
  const job = await paidJob(h, p, over);
  const r = await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token);
  if (r.status !== 200) throw new Error(`claim ${r.status}`);
  return { job, p, t };
}

function dashboardForm(
  over: Record<string, string | undefined> = {},
  file?: { data: Buffer; name: string; type?: string },
) {
  const f = new FormData();
  const fields = {
    feedback_text: 'The signup button is hidden below the fold on mobile.',
    key_finding_1: 'Signup button hard to find',
    ...over,
  };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) f.append(k, v);
  if (file)
    f.append(
      'screenshot',
      new Blob([new Uint8Array(file.data)], { type: file.type ?? 'image/png' }),
      file.name,
    );
  return f;
}

function posterFlowForm(
  over: Record<string, string | undefined> = {},
  files: Array<{ data: Buffer; name: string; type?: string }> = [],
) {
  const f = new FormData();
  const fields = {
    requirement_responses: JSON.stringify([
      { requirement_index: 0, response_text: 'Yes, top right corner of the page.' },
      { requirement_index: 1, response_text: '' },
    ]),
    general_feedback: 'Overall smooth.',
    device_used: 'iPhone 13',
    browser_used: 'Safari 17',
    key_findings_bullet_1: 'Button is small',
    key_findings_bullet_2: 'E-mail took 2 minutes',
    key_findings_bullet_3: 'Footer links broken',
    ...over,
  };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) f.append(k, v);
  for (const file of files)
    f.append(
      'files',
      new Blob([new Uint8Array(file.data)], { type: file.type ?? 'image/png' }),
      file.name,
    );
  return f;
}

describe('submit work (tester dashboard variant)', () => {
  it.each([
    [{ feedback_text: 'too short' }, 'feedback_text', 'Feedback must be at least 10 characters'],
    [{ feedback_text: undefined }, 'feedback_text', 'Feedback must be at least 10 characters'],
    [
      { feedback_text: 'x'.repeat(1001) },
      'feedback_text',
      'Feedback must be less than 1000 characters',
    ],
    [
      { key_finding_1: undefined },
      'key_finding_1',
      'At least one key finding (min 5 characters) is required',
    ],
    [
      { key_finding_1: 'abcd' },
      'key_finding_1',
      'At least one key finding (min 5 characters) is required',
    ],
    [
      { key_finding_2: 'y'.repeat(121) },
      'key_finding_2',
      'Key finding must be less than 120 characters',
    ],
    [
      { key_finding_2: 'ab' },
      'key_finding_2',
      'Key finding 2 must be at least 5 characters (or leave it empty)',
    ],
    [
      { key_finding_3: 'x' },
      'key_finding_3',
      'Key finding 3 must be at least 5 characters (or leave it empty)',
    ],
  ])('refuses %j with 400 and leaves no row and no file', async (over, field, message) => {
    const { job, t } = await claimedJob();
    const before = await counts();
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      t.token,
      dashboardForm(over, { data: png, name: 'shot.png' }),
    );
    expect(r.status).toBe(400);
    expect(r.body.errors[field]).toContain(message);
    expect(await counts()).toEqual(before);
  });

  it('refuses a text file named .png with 415 and stores nothing', async () => {
    const { job, t } = await claimedJob();
    const before = await counts();
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      t.token,
      dashboardForm(
        {},
        {
          data: Buffer.from('just some text, not an image\n'.repeat(400)),
          name: 'shot.png',
          type: 'image/png',
        },
      ),
    );
    expect(r.status).toBe(415);
    expect(r.body.detail).toBe('Please upload an image file only');
    expect(await counts()).toEqual(before);
    expect(readdirSync(path.join(h.uploadDir, 'tmp'))).toEqual([]);
  });

  it('refuses an 11 MB image with 413 and stores nothing', async () => {
    const { job, t } = await claimedJob();
    const before = await counts();
    const big = Buffer.concat([png, Buffer.alloc(11 * 1024 * 1024)]);
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      t.token,
      dashboardForm({}, { data: big, name: 'big.png' }),
    );
    expect(r.status).toBe(413);
    expect(r.body.detail).toBe('File size must be less than 10MB');
    expect(await counts()).toEqual(before);
    expect(readdirSync(path.join(h.uploadDir, 'tmp'))).toEqual([]);
  });

  it('refuses an image of more than 40 megapixels with 413 before decoding it, and stores nothing', async () => {
    const { job, t } = await claimedJob();
    const before = await counts();
    // 8000 × 5001 of one colour: a small file whose pixels would take 160 MB to decode.
    const huge = await sharp({
      create: { width: 8000, height: 5001, channels: 3, background: '#fff' },
    })
      .png({ compressionLevel: 1 })
      .toBuffer();
    expect(huge.length).toBeLessThan(10 * 1024 * 1024);
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      t.token,
      dashboardForm({}, { data: huge, name: 'huge.png' }),
    );
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({
      code: 'image_too_many_pixels',
      detail: 'Images may be at most 40 megapixels.',
    });
    expect(await counts()).toEqual(before);
    expect(readdirSync(path.join(h.uploadDir, 'tmp'))).toEqual([]);
  });

  it('stores a real PNG under a generated name with a smaller preview, and records WorkSubmitted', async () => {
    const { job, t } = await claimedJob();
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      t.token,
      dashboardForm(
        { key_finding_2: 'Pricing is unclear' },
        { data: png, name: '../../evil name.png' },
      ),
    );
    expect(r.status).toBe(201);
    expect(r.body.job).toMatchObject({ status: 'submitted', id: job.id });
    expect(r.body.submission).toMatchObject({
      job_id: job.id,
      revision: 0,
      locked: false,
      submitted_by_snapshot: { name: 'Sam Submitter', location: 'USA' },
      human_preview: {
        device_used: null,
        browser_used: null,
        key_findings_bullets: ['Signup button hard to find', 'Pricing is unclear'],
      },
      general_feedback: 'The signup button is hidden below the fold on mobile.',
      requirement_responses: [],
    });
    expect(r.body.submission.file_urls).toHaveLength(1);
    expect(r.body.submission.human_preview.small_image_url).toMatch(
      /^\/api\/files\/[0-9a-f-]{36}\?sig=/,
    );

    const rows = await h.svc.ctx.dbHandle.query<{
      kind: string;
      storage_key: string;
      size: number;
      content_type: string;
    }>(
      'SELECT kind, storage_key, size::int AS size, content_type FROM jobs.files WHERE job_id = $1 ORDER BY kind',
      [job.id],
    );
    expect(rows.map((x) => x.kind)).toEqual(['original', 'preview']);
    const [orig, prev] = rows;
    expect(orig.storage_key).toMatch(new RegExp(`^${job.id}/[0-9a-f-]{36}\\.png$`));
    expect(orig.content_type).toBe('image/png');
    expect(prev.content_type).toBe('image/webp');
    const origPath = path.join(filesRoot(), orig.storage_key);
    const prevPath = path.join(filesRoot(), prev.storage_key);
    expect(statSync(origPath).size).toBe(png.length);
    expect(statSync(prevPath).size).toBeLessThan(png.length);
    const meta = await sharp(prevPath).metadata();
    expect(meta.format).toBe('webp');
    expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(480);

    const ev = await outboxEvents(h, 'WorkSubmitted', job.id);
    expect(ev).toHaveLength(1);
    expect(Date.parse(ev[0].data.autoAcceptAt) - Date.parse(ev[0].data.submittedAt)).toBe(
      96 * 3600_000,
    );
  });

  it('accepts a submission without a screenshot', async () => {
    const { job, t } = await claimedJob();
    const r = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, dashboardForm());
    expect(r.status).toBe(201);
    expect(r.body.submission.file_urls).toEqual([]);
    expect(r.body.submission.human_preview.small_image_url).toBeNull();
  });

  it('takes optional checklist answers in the Quick report and keeps only the answered items', async () => {
    const { job, t } = await claimedJob();
    expect(job.requirements.length).toBeGreaterThanOrEqual(2);
    const bad = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      t.token,
      dashboardForm({
        requirement_responses: JSON.stringify([{ requirement_index: 9, response_text: 'Yes' }]),
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.errors.requirement_responses).toEqual([
      'Each response must answer a different requirement of this job.',
    ]);
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      t.token,
      dashboardForm({
        requirement_responses: JSON.stringify([
          { requirement_index: 0, response_text: '' },
          { requirement_index: 1, response_text: 'Yes, it took two clicks.' },
        ]),
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.submission.requirement_responses).toEqual([
      { requirement_index: 1, response_text: 'Yes, it took two clicks.' },
    ]);
    // Without answers the Quick report stores none (the poster sees no empty rows).
    const other = await claimedJob();
    const plain = await api(
      h,
      'POST',
      `/api/jobs/${other.job.id}/submit-work`,
      other.t.token,
      dashboardForm(),
    );
    expect(plain.body.submission.requirement_responses).toEqual([]);
  });

  it('tells the poster a Canadian tester is in Canada, whatever location the role screen kept', async () => {
    const p = await poster(h);
    const t = await tester(h, { country: 'CA', name: 'Cam Canuck' });
    const job = await paidJob(h, p, { geo_rule: 'us_pr_ca' });
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
    const r = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, dashboardForm());
    expect(r.status).toBe(201);
    expect(r.body.submission.submitted_by_snapshot).toEqual({
      name: 'Cam Canuck',
      location: 'Canada',
    });
  });

  it('lets only the tester holding the job submit, only while claimed', async () => {
    const { job, t } = await claimedJob();
    const other = await tester(h);
    const r = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, other.token, dashboardForm());
    expect(r.status).toBe(403);
    const p = await poster(h);
    expect(
      (await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, p.token, dashboardForm())).status,
    ).toBe(403);
    expect(
      (await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, dashboardForm())).status,
    ).toBe(201);
    const twice = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, dashboardForm());
    expect(twice.status).toBe(409);
    expect(twice.body.detail).toBe(
      'Work has already been submitted for this job and is waiting for review.',
    );
  });

  it('refuses a JSON body (not multipart) with 400', async () => {
    const { job, t } = await claimedJob();
    const r = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, {
      feedback_text: 'hello there friend',
    });
    expect(r.status).toBe(400);
  });
});

describe('submit work (poster-flow variant)', () => {
  it.each([
    [
      { requirement_responses: '[]' },
      'requirement_responses',
      'Please provide at least one response to the requirements before submitting.',
    ],
    [
      { requirement_responses: JSON.stringify([{ requirement_index: 0, response_text: '   ' }]) },
      'requirement_responses',
      'Please provide at least one response to the requirements before submitting.',
    ],
    [
      { requirement_responses: JSON.stringify([{ requirement_index: 0, response_text: 'short' }]) },
      'requirement_responses',
      'Please provide more detailed responses (at least 10 characters each).',
    ],
    [
      {
        requirement_responses: JSON.stringify([
          { requirement_index: 0, response_text: 'z'.repeat(501) },
        ]),
      },
      'requirement_responses.0.response_text',
      'Each response must be 500 characters or less',
    ],
    [
      { requirement_responses: 'not json' },
      'requirement_responses',
      'Requirement responses must be a list of {requirement_index, response_text}',
    ],
    [
      {
        requirement_responses: JSON.stringify([
          { requirement_index: 7, response_text: 'a valid long answer' },
        ]),
      },
      'requirement_responses',
      'Each response must answer a different requirement of this job.',
    ],
    [{ device_used: '' }, 'device_used', 'Device used is required'],
    [{ device_used: 'd'.repeat(51) }, 'device_used', 'Device used must be 50 characters or less'],
    [{ browser_used: undefined }, 'browser_used', 'Browser used is required'],
    [
      { browser_used: 'b'.repeat(51) },
      'browser_used',
      'Browser used must be 50 characters or less',
    ],
    [{ key_findings_bullet_1: '' }, 'key_findings_bullet_1', 'Key finding 1 is required'],
    [{ key_findings_bullet_2: undefined }, 'key_findings_bullet_2', 'Key finding 2 is required'],
    [
      { key_findings_bullet_3: 'k'.repeat(101) },
      'key_findings_bullet_3',
      'Key finding 3 must be 100 characters or less',
    ],
  ])('refuses %j with 400 and leaves no row and no file', async (over, field, message) => {
    const { job, t } = await claimedJob();
    const before = await counts();
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submissions`,
      t.token,
      posterFlowForm(over, [{ data: png, name: 'a.png' }]),
    );
    expect(r.status).toBe(400);
    expect(r.body.errors[field]).toContain(message);
    expect(await counts()).toEqual(before);
  });

  it('stores several files (images and a WebM video) and one submission model', async () => {
    const { job, t } = await claimedJob();
    // minimal WebM (EBML header + webm doctype) is enough for content sniffing
    const webm = Buffer.concat([
      Buffer.from('1a45dfa3a34286810142f7810142f2810442f381084282847765626d42878102428581', 'hex'),
      Buffer.alloc(5000),
    ]);
    const gif = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#f00' } })
      .gif()
      .toBuffer();
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submissions`,
      t.token,
      posterFlowForm({}, [
        { data: png, name: 'one.png' },
        { data: webm, name: 'clip.webm', type: 'video/webm' },
        { data: gif, name: 'two.gif', type: 'image/gif' },
      ]),
    );
    expect(r.status).toBe(201);
    expect(r.body.submission).toMatchObject({
      human_preview: {
        device_used: 'iPhone 13',
        browser_used: 'Safari 17',
        key_findings_bullets: ['Button is small', 'E-mail took 2 minutes', 'Footer links broken'],
      },
      requirement_responses: [
        { requirement_index: 0, response_text: 'Yes, top right corner of the page.' },
      ],
      general_feedback: 'Overall smooth.',
    });
    expect(r.body.submission.file_urls).toHaveLength(3);
    expect(r.body.submission.file_names).toEqual(['one.png', 'clip.webm', 'two.gif']);
    const types = await h.svc.ctx.dbHandle.query<{ content_type: string }>(
      `SELECT content_type FROM jobs.files WHERE job_id = $1 AND kind = 'original' ORDER BY content_type`,
      [job.id],
    );
    expect(types.map((x) => x.content_type)).toEqual(['image/gif', 'image/png', 'video/webm']);
  });

  it('refuses a text file named .png with 415 saying images or video are accepted', async () => {
    const { job, t } = await claimedJob();
    const before = await counts();
    const text = {
      data: Buffer.from('just some text, not an image\n'.repeat(400)),
      name: 'shot.png',
      type: 'image/png',
    };
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submissions`,
      t.token,
      posterFlowForm({}, [text]),
    );
    expect(r.status).toBe(415);
    expect(r.body.detail).toBe('Please upload image or video files only');
    expect(await counts()).toEqual(before);
  });

  it('refuses a sixth file', async () => {
    const { job, t } = await claimedJob();
    const before = await counts();
    const six = Array.from({ length: 6 }, (_, i) => ({ data: png, name: `f${i}.png` }));
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submissions`,
      t.token,
      posterFlowForm({}, six),
    );
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe('Please upload at most 5 files');
    expect(await counts()).toEqual(before);
  });
});

describe('result file names', () => {
  it("keeps the tester's own file name, sanitised, with the extension its content has", async () => {
    const { job, t } = await claimedJob();
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submissions`,
      t.token,
      posterFlowForm({}, [
        { data: png, name: 'C:\\fakepath\\Página de pago.jpg' },
        { data: png, name: '../../=cmd|calc.png' },
        { data: png, name: '....png' },
      ]),
    );
    expect(r.status).toBe(201);
    expect(r.body.submission.file_names).toEqual(['Página de pago.png', 'cmd_calc.png', null]);
    // Non-ASCII names go in filename* with an ASCII fallback.
    const d = await fetch(`${h.svc.url}${r.body.submission.file_urls![0]}&download=1`);
    expect(d.headers.get('content-disposition')).toMatch(
      /^attachment; filename="file-[0-9a-f]{8}\.png"; filename\*=UTF-8''P%C3%A1gina%20de%20pago\.png$/,
    );
    const third = await fetch(`${h.svc.url}${r.body.submission.file_urls![2]}`);
    expect(third.headers.get('content-disposition')).toMatch(
      /^inline; filename="file-[0-9a-f]{8}\.png"$/,
    );
  });
});

describe('reading submissions and files', () => {
  let job: JobView;
  let p: Person;
  let t: Person;
  let sub: OwnSubmission;
  beforeAll(async () => {
    ({ job, p, t } = await claimedJob());
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submissions`,
      t.token,
      posterFlowForm({}, [{ data: png, name: 'one.png' }]),
    );
    sub = r.body.submission as OwnSubmission;
  });

  it('locks the submission for the poster until accepted, showing only the preview', async () => {
    const r = await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      locked: true,
      requirement_responses: null,
      general_feedback: null,
      file_urls: null,
    });
    expect(r.body.auto_accept_at).not.toBeNull();
    expect(r.body.human_preview.small_image_url).toMatch(/^\/api\/files\//);
    // the preview loads through its signed link without a bearer token
    const prev = await fetch(`${h.svc.url}${r.body.human_preview.small_image_url}`);
    expect(prev.status).toBe(200);
    expect(prev.headers.get('content-type')).toBe('image/webp');
    expect(prev.headers.get('x-content-type-options')).toBe('nosniff');
    // but the original is refused to the poster's bearer token while locked
    const origId = /\/api\/files\/([0-9a-f-]+)/.exec(sub.file_urls[0])![1];
    expect((await api(h, 'GET', `/api/files/${origId}`, p.token)).status).toBe(403);
  });

  it('shows everything to the tester who made it and to the admin', async () => {
    const byTester = await api(h, 'GET', `/api/jobs/${job.id}/submission`, t.token);
    expect(byTester.body.locked).toBe(false);
    expect(byTester.body.file_urls).toHaveLength(1);
    const byAdmin = await api(h, 'GET', `/api/jobs/${job.id}/submission`, (await admin(h)).token);
    expect(byAdmin.body.locked).toBe(false);
  });

  it('refuses strangers (another poster, another tester) the submission and its files', async () => {
    const otherPoster = await poster(h);
    const otherTester = await tester(h);
    const origId = /\/api\/files\/([0-9a-f-]+)/.exec(sub.file_urls[0])![1];
    for (const who of [otherPoster, otherTester]) {
      expect((await api(h, 'GET', `/api/jobs/${job.id}/submission`, who.token)).status).toBe(403);
      expect((await api(h, 'GET', `/api/files/${origId}`, who.token)).status).toBe(403);
    }
    expect((await api(h, 'GET', `/api/files/${origId}`)).status).toBe(401);
  });

  it('serves files by signed link with the sniffed type, and as an attachment with ?download=1', async () => {
    const url = sub.file_urls[0];
    const r = await fetch(`${h.svc.url}${url}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await r.arrayBuffer()).equals(png)).toBe(true);
    const d = await fetch(`${h.svc.url}${url}&download=1`);
    // Saved under the tester's own file name.
    expect(d.headers.get('content-disposition')).toBe('attachment; filename="one.png"');
  });

  it('refuses expired and tampered signed links', async () => {
    const origId = /\/api\/files\/([0-9a-f-]+)/.exec(sub.file_urls[0])![1];
    const expired = h.svc.deps.links.url(origId, Date.now() - 1000);
    const r = await api(h, 'GET', expired);
    expect(r.status).toBe(403);
    expect(r.body.detail).toBe('This link has expired. Please reload the page.');
    const tampered = sub.file_urls[0].replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A'));
    expect((await api(h, 'GET', tampered)).status).toBe(403);
    // a link signed for one file does not open another
    const sig = new URL(`http://x${sub.file_urls[0]}`).searchParams.get('sig');
    const previewId = /\/api\/files\/([0-9a-f-]+)/.exec(sub.human_preview.small_image_url)![1];
    expect((await api(h, 'GET', `/api/files/${previewId}?sig=${sig}`)).status).toBe(403);
  });

  it('answers 404 when nothing was submitted yet', async () => {
    const c = await claimedJob();
    expect((await api(h, 'GET', `/api/jobs/${c.job.id}/submission`, c.p.token)).status).toBe(404);
  });
});

describe('"Download my data" follows the submission view', () => {
  it("gives the poster's export each report as the submission view shows it, field by field: locked parts left out until accepted, all of it after", async () => {
    const { job, p, t } = await claimedJob();
    const feedback = `Checkout loses the coupon on reload ${randomBytes(4).toString('hex')}.`;
    const answer = `The signup button sits under the banner ${randomBytes(4).toString('hex')}.`;
    const submitted = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submissions`,
      t.token,
      posterFlowForm(
        {
          general_feedback: feedback,
          requirement_responses: JSON.stringify([{ requirement_index: 0, response_text: answer }]),
        },
        [{ data: png, name: 'proof.png' }],
      ),
    );
    expect(submitted.status).toBe(201);
    const exportOf = async (who: Person) => {
      // What identity asks each service for when it builds the archive.
      const res = await fetch(`${h.svc.url}/internal/privacy/users/${who.id}/export`, {
        headers: { authorization: `Bearer ${await mintServiceToken(SECRET, 'identity')}` },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { data: { reports_received: Array<Record<string, unknown>> } };
    };
    /** The fields the view and the export share, as [view, export] pairs. */
    const side = async () => {
      const view = (await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token)).body;
      const exported = await exportOf(p);
      const report = exported.data.reports_received.find((r) => r.id === view.id)!;
      expect(report).toBeDefined();
      return {
        raw: JSON.stringify(exported),
        pairs: {
          locked: [view.locked, report.locked],
          revision: [view.revision, report.revision],
          device_used: [view.human_preview.device_used, report.deviceUsed],
          browser_used: [view.human_preview.browser_used, report.browserUsed],
          key_findings: [view.human_preview.key_findings_bullets, report.keyFindings],
          requirement_responses: [view.requirement_responses, report.requirementResponses],
          general_feedback: [view.general_feedback, report.generalFeedback],
          files: [
            view.file_urls?.length ?? null,
            (report.fileIds as string[] | null)?.length ?? null,
          ],
        },
      };
    };
    const before = await side();
    for (const [field, [inView, inExport]] of Object.entries(before.pairs))
      expect([field, inExport]).toEqual([field, inView]);
    expect(before.pairs.locked[0]).toBe(true);
    expect(before.pairs.general_feedback[0]).toBeNull();
    expect(before.raw).not.toContain(feedback);
    expect(before.raw).not.toContain(answer);
    // Once accepted, both show the whole report.
    expect(
      (await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, { decision: 'accept' })).status,
    ).toBe(200);
    const after = await side();
    for (const [field, [inView, inExport]] of Object.entries(after.pairs))
      expect([field, inExport]).toEqual([field, inView]);
    expect(after.pairs.locked[0]).toBe(false);
    expect(after.pairs.general_feedback[0]).toBe(feedback);
    expect(after.raw).toContain(answer);
  });
});

describe('review', () => {
  async function submitted() {
    const c = await claimedJob();
    const r = await api(
      h,
      'POST',
      `/api/jobs/${c.job.id}/submit-work`,
      c.t.token,
      dashboardForm({}, { data: png, name: 's.png' }),
    );
    expect(r.status).toBe(201);
    return c;
  }

  it('refuses reject with the MVP message and a missing decision', async () => {
    const { job, p } = await submitted();
    const r = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {
      decision: 'reject',
      reason: 'bad',
    });
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe('Rejection not supported in MVP. Request revision instead.');
    const none = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {});
    expect(none.status).toBe(400);
    expect(none.body.detail).toBe('Please choose a decision');
  });

  it('allows one revision with a reason, then the resubmission, then refuses a second revision (409)', async () => {
    const { job, p, t } = await submitted();
    const noReason = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {
      decision: 'request_revision',
    });
    expect(noReason.status).toBe(400);
    const r = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {
      decision: 'request_revision',
      reason: 'Please add screenshots of the checkout',
      specific_issues: ['No checkout screenshot'],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      payment_processed: false,
      revision_count: 1,
      job: {
        status: 'revision_requested',
        last_review: {
          decision: 'request_revision',
          reason: 'Please add screenshots of the checkout',
        },
      },
    });
    const ev = await outboxEvents(h, 'RevisionRequested', job.id);
    expect(Date.parse(ev[0].data.deadlineAt) - Date.parse(ev[0].data.requestedAt)).toBe(
      48 * 3600_000,
    );
    // resubmit
    const again = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      t.token,
      dashboardForm({ feedback_text: 'Added the checkout details as asked.' }),
    );
    expect(again.status).toBe(201);
    expect(again.body.submission.revision).toBe(1);
    const second = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {
      decision: 'request_revision',
      reason: 'more',
    });
    expect(second.status).toBe(409);
    expect(second.body.detail).toBe(
      'Only one revision is allowed per job. Please accept the work.',
    );
    // accept: completes, emits SubmissionAccepted with what payments needs, unlocks
    const acc = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, { decision: 'accept' });
    expect(acc.status).toBe(200);
    expect(acc.body).toMatchObject({
      payment_processed: true,
      revision_count: 1,
      job: { status: 'completed' },
    });
    const accepted = await outboxEvents(h, 'SubmissionAccepted', job.id);
    expect(accepted).toHaveLength(1);
    expect(accepted[0].data).toMatchObject({
      jobId: job.id,
      testerId: t.id,
      posterId: p.id,
      title: job.title,
      acceptedBy: 'poster',
    });
    const view = await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token);
    expect(view.body.locked).toBe(false);
    expect(view.body.general_feedback).toBe('Added the checkout details as asked.');
    expect(
      (await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, { decision: 'accept' })).status,
    ).toBe(409);
  });

  it('stores the specific issues of a revision request and shows them to the tester with the reason', async () => {
    const { job, p, t } = await submitted();
    const issues = ['Checkout button not tested', 'No screenshot of the cart'];
    const r = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {
      decision: 'request_revision',
      reason: 'Please test the checkout',
      specific_issues: [...issues, '  '],
    });
    expect(r.status).toBe(200);
    expect(r.body.job.last_review).toMatchObject({
      reason: 'Please test the checkout',
      specific_issues: issues,
    });
    const stored = await h.svc.ctx.dbHandle.query<{
      last_review: { specific_issues?: string[] } | null;
    }>('SELECT last_review FROM jobs.jobs WHERE id = $1', [job.id]);
    expect(stored[0]?.last_review?.specific_issues).toEqual(issues);
    const mine = await api(h, 'GET', '/api/tester/my-jobs', t.token);
    const seen = mine.body.jobs.find((j: { id: string }) => j.id === job.id);
    expect(seen).toMatchObject({
      status: 'revision_requested',
      last_review: {
        decision: 'request_revision',
        reason: 'Please test the checkout',
        specific_issues: issues,
      },
    });
  });

  it('reads specific issues sent as one text as one issue per line, and refuses too many or too long ones', async () => {
    const { job, p, t } = await submitted();
    const tooMany = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {
      decision: 'request_revision',
      reason: 'r',
      specific_issues: Array.from({ length: 21 }, (_, i) => `issue ${i}`),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors.specific_issues).toEqual([
      'You can list at most 20 specific issues',
    ]);
    const tooLong = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {
      decision: 'request_revision',
      reason: 'r',
      specific_issues: ['x'.repeat(501)],
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors['specific_issues.0']).toEqual([
      'Each specific issue must be 500 characters or less',
    ]);
    const r = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {
      decision: 'request_revision',
      reason: 'Redo',
      specific_issues: 'Menu\r\n\n Footer links ',
    });
    expect(r.status).toBe(200);
    const mine = await api(h, 'GET', '/api/tester/my-jobs', t.token);
    expect(
      mine.body.jobs.find((j: { id: string }) => j.id === job.id)?.last_review?.specific_issues,
    ).toEqual(['Menu', 'Footer links']);
  });

  it('lets only the poster of the job or the admin review; admin completes via PATCH', async () => {
    const { job, t } = await submitted();
    const other = await poster(h);
    expect(
      (await api(h, 'POST', `/api/jobs/${job.id}/review`, other.token, { decision: 'accept' }))
        .status,
    ).toBe(403);
    expect(
      (await api(h, 'POST', `/api/jobs/${job.id}/review`, t.token, { decision: 'accept' })).status,
    ).toBe(403);
    expect((await api(h, 'PATCH', `/api/jobs/${job.id}/complete`, other.token)).status).toBe(403);
    const a = await admin(h);
    const r = await api(h, 'PATCH', `/api/jobs/${job.id}/complete`, a.token);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ payment_processed: true, job: { status: 'completed' } });
    expect((await outboxEvents(h, 'SubmissionAccepted', job.id))[0].data).toMatchObject({
      acceptedBy: 'admin',
      actorId: a.id,
    });
  });

  it('answers 409 to a review before anything is submitted', async () => {
    const { job, p } = await claimedJob();
    const r = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, { decision: 'accept' });
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe('There is no submitted work to review yet.');
  });
});

describe('POST /internal/jobs/clear (after GET /internal/jobs/clear-preview)', () => {
  it('needs the admin service token and the fingerprint of the current jobs, then deletes jobs, submissions and files and records JobsCleared with the paid jobs to refund', async () => {
    expect((await api(h, 'GET', '/internal/jobs/clear-preview')).status).toBe(401);
    expect((await api(h, 'POST', '/internal/jobs/clear', undefined, {})).status).toBe(401);
    const wrong = await mintServiceToken(SECRET, 'payments');
    expect((await api(h, 'GET', '/internal/jobs/clear-preview', wrong)).status).toBe(403);
    expect((await api(h, 'POST', '/internal/jobs/clear', wrong, {})).status).toBe(403);
    const before = await counts();
    expect(before.disk).toBeGreaterThan(0);
    // A job's health check as site-check told it; none kept for a job jobs does not have.
    const checked = await paidJob(h, await poster(h));
    const healthChecks = () =>
      h.svc.ctx.dbHandle.query<{ job_id: string }>('SELECT job_id FROM jobs.site_checks');
    for (const jobId of [checked.id, randomUUID()]) await siteCheckFailed(h, jobId);
    expect((await healthChecks()).map((r) => r.job_id)).toEqual([checked.id]);
    const jobsNow = await h.svc.ctx.dbHandle.query<{
      id: string;
      status: string;
      payment_status: string;
    }>('SELECT id, status, payment_status FROM jobs.jobs');
    const unfinished = jobsNow
      .filter((j) => j.payment_status === 'paid' && j.status !== 'completed')
      .map((j) => j.id)
      .sort();
    expect(unfinished.length).toBeGreaterThan(0);
    const tok = await mintServiceToken(SECRET, 'admin');

    const preview = await api<
      Record<string, unknown> & { fingerprint: string; jobs_by_status: Record<string, number> }
    >(h, 'GET', '/internal/jobs/clear-preview', tok);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      jobs_total: jobsNow.length,
      submissions: before.s,
      paid_unfinished: unfinished.length,
      paid_unfinished_cents: unfinished.length * 100,
      paid_completed: jobsNow.filter((j) => j.payment_status === 'paid' && j.status === 'completed')
        .length,
      unpaid: jobsNow.filter((j) => j.payment_status !== 'paid').length,
    });
    expect(Object.values(preview.body.jobs_by_status).reduce((a, b) => a + b, 0)).toBe(
      jobsNow.length,
    );

    // Without the fingerprint: 400; with a stale one (a job posted since): 409, nothing deleted.
    expect((await api(h, 'POST', '/internal/jobs/clear', tok, {})).status).toBe(400);
    await paidJob(h, await poster(h));
    const stale = await api(h, 'POST', '/internal/jobs/clear', tok, {
      fingerprint: preview.body.fingerprint,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('clear_preview_stale');
    expect(await counts()).toEqual(before);

    const fresh = await api<{ fingerprint: string }>(h, 'GET', '/internal/jobs/clear-preview', tok);
    const adminId = '5b0d6f2e-4a57-4c1e-9b8b-3c1f2a7d9e10';
    const r = await api(h, 'POST', '/internal/jobs/clear', tok, {
      fingerprint: fresh.body.fingerprint,
      actor_id: adminId,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      jobs_deleted: jobsNow.length + 1,
      submissions_deleted: before.s,
      refunded_jobs: unfinished.length + 1,
    });
    expect(await counts()).toEqual({ s: 0, f: 0, disk: 0 });
    expect(await healthChecks()).toEqual([]);
    const event = (await outboxEvents(h, 'JobsCleared')).at(-1)!.data;
    expect({ ...event, refundJobIds: undefined }).toEqual({
      jobsDeleted: jobsNow.length + 1,
      submissionsDeleted: before.s,
      actorId: adminId,
      refundJobIds: undefined,
    });
    expect(event.refundJobIds).toHaveLength(unfinished.length + 1);
    expect(event.refundJobIds).toEqual(expect.arrayContaining(unfinished));
  });
});
