/**
 * Reports at ten testers (issue #54 part 3): a pack of 10, each tester with a screen recording
 * (10 minutes by default), 3 findings (30 in all, with severity, steps and a moment in the
 * recording) and a screenshot (10), every report accepted, the pack's summary computed (the bench
 * stack runs no session checks, as the test stack: reports reach the owner unchecked). Then, one viewer at a time (sequential requests through the
 * gateway, the all-in-one bench stack on real PostgreSQL):
 * - the report view's API: what the owner's screen asks for (the pack, its summary, each tester's
 *   submission, the health check): p99 of each route (target <= 300 ms);
 * - the pack's share page (/r/{token}): time to the first byte, p99 (target <= 300 ms);
 * - the pack's PDF: p99 (target <= 3 s) and the process's extra memory while rendering one
 *   (peak RSS sampled every 10 ms minus the RSS before it; target <= 150 MB);
 * - the summary computed again (domain/summaries.ts computeSummary, the worker's whole step with
 *   its reads and its write; target <= 200 ms; bench/summary.ts times the pure part alone).
 * Baseline in the same run: GET /api/me (the gateway's token check and one small read), so the
 * ratios say how much is the report's own work on a machine of any speed.
 *
 *   npx tsx bench/report-pack.ts [--minutes 10] [--size 1920x1080] [--n 100]
 *   npx tsx bench/report-pack.ts --minutes 3 --size 640x360 --n 20   # a smoke run
 */
import { createReadStream, statSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import type { JobView } from '@htm/contracts';
import { computeSummary } from '@htm/jobs/testing';
import {
  client,
  signInAdmin,
  signInPoster,
  signInTester,
  waitFor,
  type Actor,
} from '../test/support/stack.js';
import { recording } from './media.js';
import { writeAloneSection } from './results.js';
import {
  figure,
  fmt,
  isMain,
  loadLine,
  pct,
  rssMb,
  runAlone,
  step,
  type Stack,
} from './support.js';

const NAME = 'report-pack';
const TESTERS = 10;

export const INTRO =
  "A pack of 10 testers, each with a screen recording (uploaded over tus and remuxed as every recording is), 3 findings and a screenshot, every report accepted and the pack's summary computed; requests one after the other through the gateway of the all-in-one bench stack (real PostgreSQL and Redis; its session checks are off, as in the test stack: reports reach the owner unchecked; bench/session-check.ts measures a check). Baseline in the same run: GET /api/me.";

/** Twelve problems, each in three testers\' words: tester i reports problems i, i+1, i+2. */
const PROBLEMS: Array<[string, string, string]> = [
  [
    'The checkout button is hidden behind the cookie banner',
    'Cookie banner covers the checkout button',
    'I could not press checkout because the cookie notice was on top of it',
  ],
  [
    'Shipping costs only appear at the last step',
    'I only saw the delivery price right before paying',
    'Delivery cost is a surprise at the very end',
  ],
  [
    'The search finds nothing for "lamp"',
    'Searching for lamp gives no results',
    'Search did not return any lamps although the shop sells them',
  ],
  [
    'Product photos load very slowly on the phone',
    'Pictures took ages to appear on my mobile',
    'Images are slow to show on a phone',
  ],
  [
    'The size guide link does nothing',
    'Clicking size guide has no effect',
    'Size guide does not open',
  ],
  [
    'Coupon field clears itself after a reload',
    'My discount code vanished when the page reloaded',
    'The promo code is lost on refresh',
  ],
  [
    'Menu text is too small to read on a phone',
    'Navigation labels are tiny on mobile',
    'I had to zoom in to read the menu',
  ],
  [
    'The contact form gives no confirmation',
    'After sending the contact form nothing happened',
    'No message that my question was sent',
  ],
  [
    'Prices show without tax until the basket',
    'Tax is only added in the basket',
    'The price went up in the cart because of tax',
  ],
  [
    'The back button empties the basket',
    'Going back lost the items in my cart',
    'Pressing back removed what I had added',
  ],
  [
    'The account page asks for my password twice',
    'Had to type the password two times to sign in',
    'Login asks for the password again right away',
  ],
  [
    'Footer links to returns policy are broken',
    'The returns page link gives an error',
    'Returns policy link does not work',
  ],
];
const SEVERITIES = ['blocker', 'major', 'minor', 'cosmetic'];

const ms = (t0: number) => performance.now() - t0;

/** V8's CPU profile of this process from now until stop(), written as <BENCH_PROFILE>/<name>.cpuprofile. */
async function startProfile(): Promise<{ stop(name: string): Promise<string> }> {
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, (err, r) => (err ? reject(err) : resolve(r))),
    );
  await post('Profiler.enable');
  await post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      session.disconnect();
      const file = path.join(process.env.BENCH_PROFILE!, `${name}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}

/** n requests one after the other; the ms of each, sorted (`firstByte`: until the answer's head). */
async function timedGets(
  url: string,
  headers: Record<string, string>,
  n: number,
  firstByte = false,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await fetch(url, { headers });
    const head = ms(t0);
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`GET ${url} answered ${r.status}`);
    out.push(firstByte ? head : ms(t0));
  }
  return out.sort((a, b) => a - b);
}

/** A tus upload of the file as the web app sends it (POST, then PATCHes of 5 MB); the recording id. */
async function upload(stack: Stack, tester: Actor, jobId: string, file: string): Promise<string> {
  const size = statSync(file).size;
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const tus = { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${tester.token}` };
  const created = await fetch(`${stack.url}/api/recordings`, {
    method: 'POST',
    headers: {
      ...tus,
      'Upload-Length': String(size),
      'Upload-Metadata': `job_id ${b64(jobId)},filetype ${b64('video/webm')}`,
    },
  });
  if (created.status !== 201) throw new Error(`tus POST answered ${created.status}`);
  const loc = created.headers.get('location')!;
  const chunk = 5 * 1024 * 1024;
  for (let offset = 0; offset < size; offset += chunk) {
    const parts: Buffer[] = [];
    for await (const b of createReadStream(file, {
      start: offset,
      end: Math.min(size, offset + chunk) - 1,
    }))
      parts.push(b as Buffer);
    const r = await fetch(`${stack.url}${loc}`, {
      method: 'PATCH',
      headers: {
        ...tus,
        'Upload-Offset': String(offset),
        'Content-Type': 'application/offset+octet-stream',
      },
      body: new Uint8Array(Buffer.concat(parts)),
    });
    if (r.status !== 204) throw new Error(`tus PATCH answered ${r.status} ${await r.text()}`);
  }
  return loc.split('/').pop()!;
}

/** The pack, its ten reports delivered and accepted, its summary computed. */
async function seedPack(
  stack: Stack,
  file: string,
  minutes: number,
): Promise<{ poster: Actor; packId: string; jobs: JobView[] }> {
  const stamp = Date.now();
  const admin = await signInAdmin(stack);
  const poster = await signInPoster(stack, `bench.pack.${stamp}@gmail.com`);
  const testers: Actor[] = [];
  for (let i = 0; i < TESTERS; i++)
    testers.push(await signInTester(stack, `bench.pack.${stamp}.${i}@gmail.com`, { admin }));
  const posted = await client(stack, poster.token).post('/api/jobs', {
    title: 'Ten testers on my lamp shop',
    url: 'https://lamps.example',
    what_to_test: 'Buy a lamp as a first-time visitor and say what stops you',
    requirements: ['Find a lamp you like', 'Buy it', 'Find the returns policy'],
    geo_rule: 'us_pr_ca',
    fresh_eyes: false,
    testers: TESTERS,
  });
  if (posted.status !== 201) throw new Error(`POST /api/jobs answered ${posted.status}`);
  const jobs = posted.body.jobs as JobView[];
  const packId = (posted.body.pack as { id: string }).id;
  const pay = await fetch(`${stack.url}${posted.body.checkout_url}/pay`, {
    method: 'POST',
    redirect: 'manual',
  });
  if (pay.status !== 303) throw new Error(`pay answered ${pay.status}`);
  await waitFor(
    async () =>
      (await client(stack, poster.token).get('/api/jobs')).body.jobs.filter(
        (j) => j.pack_id === packId && j.payment_status === 'paid',
      ).length === TESTERS,
    'the pack paid',
  );
  const shot = await sharp({
    create: { width: 1280, height: 800, channels: 3, background: { r: 240, g: 240, b: 235 } },
  })
    .composite([
      {
        input: await sharp({
          create: { width: 600, height: 300, channels: 3, background: { r: 40, g: 90, b: 200 } },
        })
          .png()
          .toBuffer(),
        top: 200,
        left: 340,
      },
    ])
    .png()
    .toBuffer();
  step(
    NAME,
    `${TESTERS} testers claim, upload a ${minutes}-minute recording (${(statSync(file).size / 1048576).toFixed(0)} MB) and report`,
  );
  for (const [i, tester] of testers.entries()) {
    const jobId = jobs[i].id;
    const claim = await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`, {});
    if (claim.status !== 200) throw new Error(`claim answered ${claim.status}`);
    const recordingId = await upload(stack, tester, jobId, file);
    await waitFor(
      async () =>
        (
          await stack.sql<{ d: number | null }>(
            'SELECT duration_ms AS d FROM jobs.recordings WHERE id = $1',
            [recordingId],
          )
        )[0]?.d != null,
      'the recording remuxed and measured',
      120_000,
    );
    const form = new FormData();
    form.set(
      'feedback_text',
      `Tester ${i + 1} here. I looked for a lamp for my ${['desk', 'bedroom', 'hall', 'kitchen', 'office'][i % 5]}, then tried to buy it and to find out how returns work. ${PROBLEMS[i % 12][i % 3]}.`,
    );
    for (let k = 0; k < 3; k++) {
      const n = k + 1;
      form.set(`key_finding_${n}`, PROBLEMS[(i + k) % 12][(i + k) % 3]);
      form.set(`key_finding_${n}_severity`, SEVERITIES[(i + k) % SEVERITIES.length]);
      form.set(
        `key_finding_${n}_steps`,
        `1. Open the shop\n2. Step ${k + 1} of my path as tester ${i + 1}`,
      );
      form.set(`key_finding_${n}_at_ms`, String(Math.round(((k + 1) * minutes * 60_000) / 4)));
    }
    form.set(
      'task_answers',
      JSON.stringify([
        { requirement_index: 0, outcome: 'done', seq: 5 + (i % 3), minutes: 2 + (i % 4) },
        { requirement_index: 1, outcome: i % 3 ? 'done' : 'partly', seq: 3 + (i % 4), minutes: 4 },
        {
          requirement_index: 2,
          outcome: i % 2 ? 'done' : 'not_done',
          seq: 2 + (i % 5),
          minutes: 3,
        },
      ]),
    );
    form.set('recording_id', recordingId);
    form.set(
      'screenshot',
      new Blob([new Uint8Array(shot)], { type: 'image/png' }),
      `tester-${i + 1}.png`,
    );
    const sub = await fetch(`${stack.url}/api/jobs/${jobId}/submit-work`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tester.token}` },
      body: form,
    });
    if (sub.status !== 201)
      throw new Error(`submit-work answered ${sub.status} ${await sub.text()}`);
  }
  step(NAME, 'accepting the ten reports');
  let delivered = 0;
  for (const job of jobs) {
    const accepted = await client(stack, poster.token).post(`/api/jobs/${job.id}/review`, {
      decision: 'accept',
    });
    if (accepted.status === 200) delivered++;
  }
  figure(NAME, 'reports delivered to the owner and accepted', `${delivered} of ${TESTERS}`, {
    text: `${TESTERS}`,
    ok: delivered === TESTERS,
  });
  await waitFor(
    async () => {
      const r = await client(stack, poster.token).get(`/api/packs/${packId}/summary`);
      return r.status === 200 && (r.body as { problems?: unknown[] }).problems!.length > 0;
    },
    'the pack summary',
    120_000,
  );
  return { poster, packId, jobs };
}

export async function run(
  stack: Stack,
  opts: { minutes?: number; size?: string; n?: number } = {},
): Promise<void> {
  const minutes = opts.minutes ?? 10;
  const n = opts.n ?? 100;
  const file = recording(minutes, opts.size ?? '1920x1080', NAME);
  const { poster, packId, jobs } = await seedPack(stack, file, minutes);
  const auth = { authorization: `Bearer ${poster.token}` };
  const api = (p: string) => `${stack.url}${p}`;
  step(NAME, `measuring, ${n} requests of each route one after the other; load ${loadLine()}`);

  const base = await timedGets(api('/api/me'), auth, n);
  figure(
    NAME,
    'baseline GET /api/me: p50 / p99 (ms)',
    `${fmt(pct(base, 50))} / ${fmt(pct(base, 99))}`,
  );
  const routes: Array<[string, string[]]> = [
    ['GET /api/packs/{id}', [`/api/packs/${packId}`]],
    ['GET /api/packs/{id}/summary', [`/api/packs/${packId}/summary`]],
    [
      'GET /api/jobs/{id}/submission (the ten, in turn)',
      jobs.map((j) => `/api/jobs/${j.id}/submission`),
    ],
    [
      'GET /api/jobs/{id}/site-check (the ten, in turn)',
      jobs.map((j) => `/api/jobs/${j.id}/site-check`),
    ],
  ];
  const all: number[] = [];
  for (const [label, paths] of routes) {
    const each: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = await timedGets(api(paths[i % paths.length]), auth, 1);
      each.push(t[0]);
    }
    each.sort((a, b) => a - b);
    all.push(...each);
    const p99 = pct(each, 99);
    figure(NAME, `report view: ${label}: p50 / p99 (ms)`, `${fmt(pct(each, 50))} / ${fmt(p99)}`, {
      text: 'p99 <= 300',
      ok: p99 <= 300,
    });
  }
  all.sort((a, b) => a - b);
  figure(
    NAME,
    'report view: every call above, p99 / baseline p99',
    fmt(pct(all, 99) / pct(base, 99)),
  );

  const share = await client(stack, poster.token).post(`/api/packs/${packId}/share`, {});
  if (share.status !== 201) throw new Error(`pack share answered ${share.status}`);
  const sharePath = (share.body as unknown as { url: string }).url;
  const ttfb = await timedGets(api(sharePath), {}, n, true);
  figure(
    NAME,
    `pack share page ${sharePath.replace(/[^/]+$/, '{token}')}: first byte p50 / p99 (ms)`,
    `${fmt(pct(ttfb, 50))} / ${fmt(pct(ttfb, 99))}`,
    {
      text: 'p99 <= 300',
      ok: pct(ttfb, 99) <= 300,
    },
  );
  figure(NAME, 'share page first byte p99 / baseline p99', fmt(pct(ttfb, 99) / pct(base, 99)));

  const gc = (globalThis as { gc?: () => void }).gc;
  const pdfMs: number[] = [];
  const extra: number[] = [];
  let bytes = 0;
  const pdfRuns = Math.max(5, Math.round(n / 5));
  // BENCH_PROFILE=<dir>: V8's CPU profile of this process over the PDF renders (for tuning).
  const profile = process.env.BENCH_PROFILE ? await startProfile() : undefined;
  for (let i = 0; i < pdfRuns; i++) {
    gc?.();
    const before = rssMb();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 10);
    const t0 = performance.now();
    const r = await fetch(api(`/api/packs/${packId}/report.pdf`), { headers: auth });
    const body = await r.arrayBuffer();
    pdfMs.push(ms(t0));
    clearInterval(sampler);
    peak = Math.max(peak, rssMb());
    if (r.status !== 200) throw new Error(`pack PDF answered ${r.status}`);
    bytes = body.byteLength;
    extra.push(peak - before);
  }
  if (profile) step(NAME, `profile of the PDF renders: ${await profile.stop('report-pack-pdf')}`);
  pdfMs.sort((a, b) => a - b);
  extra.sort((a, b) => a - b);
  figure(
    NAME,
    `pack PDF (${fmt(bytes / 1024)} KB), ${pdfRuns} renders: p50 / p99 (ms)`,
    `${fmt(pct(pdfMs, 50))} / ${fmt(pct(pdfMs, 99))}`,
    {
      text: 'p99 <= 3000',
      ok: pct(pdfMs, 99) <= 3000,
    },
  );
  figure(
    NAME,
    `pack PDF: extra RSS of the process while rendering, median / max (MB${gc ? '' : '; no --expose-gc: rougher'})`,
    `${fmt(pct(extra, 50))} / ${fmt(extra[extra.length - 1])}`,
    {
      text: '<= 150',
      ok: extra[extra.length - 1] <= 150,
    },
  );

  const [row] = await stack.sql<{ request_seq: string }>(
    'SELECT request_seq FROM jobs.report_summaries WHERE scope_id = $1',
    [packId],
  );
  const summaryMs: number[] = [];
  for (let i = 0; i < Math.max(10, Math.round(n / 5)); i++) {
    const t0 = performance.now();
    await computeSummary(stack.jobs.deps, {
      scopeId: packId,
      scope: 'pack',
      requestSeq: Number(row.request_seq),
    });
    summaryMs.push(ms(t0));
  }
  summaryMs.sort((a, b) => a - b);
  figure(
    NAME,
    'pack summary computed again (reads, grouping, write): p50 / p99 (ms)',
    `${fmt(pct(summaryMs, 50))} / ${fmt(pct(summaryMs, 99))}`,
    {
      text: 'p99 <= 200',
      ok: pct(summaryMs, 99) <= 200,
    },
  );
  // The recordings' bytes leave the disk (a stack keeps its DATA_DIR): 10 of them are 800 MB at 1080p.
  const store = await stack.jobs.deps.recordingStore;
  for (const { id } of await stack.sql<{ id: string }>(
    'SELECT r.id FROM jobs.recordings r JOIN jobs.jobs j ON j.id = r.job_id WHERE j.pack_id = $1',
    [packId],
  ))
    await store.remove(id).catch(() => undefined);
  figure(
    NAME,
    'recording length / size / machine load average at the end',
    `${minutes} min / ${opts.size ?? '1920x1080'} / ${loadLine()}`,
  );
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: { minutes: { type: 'string' }, size: { type: 'string' }, n: { type: 'string' } },
  });
  const started = new Date();
  await runAlone(NAME, (stack) =>
    run(stack, {
      minutes: values.minutes ? Number(values.minutes) : undefined,
      size: values.size,
      n: values.n ? Number(values.n) : undefined,
    }),
  );
  writeAloneSection(NAME, started, INTRO);
}
