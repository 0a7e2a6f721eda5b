import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { JobView, SharedReportView, ShareLinkView } from '@htm/contracts';
import {
  admin,
  api,
  handled,
  paidJob,
  poster,
  publish,
  siteCheckFailed,
  startHarness,
  tester,
  waitFor,
  type Harness,
  type Person,
} from './helpers.js';

let h: Harness;
let png: Buffer;
let webp: Buffer;
beforeAll(async () => {
  h = await startHarness('share');
  // With transparency, as a browser's screenshot often is.
  png = await sharp({
    create: {
      width: 320,
      height: 200,
      channels: 4,
      background: { r: 200, g: 30, b: 30, alpha: 0.6 },
    },
  })
    .png()
    .toBuffer();
  webp = await sharp({
    create: { width: 300, height: 180, channels: 3, background: { r: 30, g: 30, b: 200 } },
  })
    .webp()
    .toBuffer();
});
afterAll(async () => {
  await h?.close();
});

type Share = ShareLinkView & { detail: string; code: string; errors: Record<string, string[]> };

/** A paid job, claimed, with work submitted (a PNG and a WebP) and, unless told, accepted. */
async function reportedJob(
  opts: { accept?: boolean } = {},
): Promise<{ job: JobView; p: Person; t: Person }> {
  const p = await poster(h, 'Pat Poster');
  const t = await tester(h, { name: 'Sam Submitter', country: 'CA' });
  const job = await paidJob(h, p, {
    title: 'Checkout on mobile',
    url: 'https://shop.example.com/cart',
    geo_rule: 'global_beta',
  });
  expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
  const f = new FormData();
  f.append(
    'requirement_responses',
    JSON.stringify([
      { requirement_index: 0, response_text: 'Yes, top right corner.' },
      { requirement_index: 1, response_text: 'It arrived after a minute.' },
    ]),
  );
  f.append('general_feedback', 'The coupon field clears itself when the page reloads.');
  f.append('device_used', 'Pixel 8');
  f.append('browser_used', 'Chrome 130');
  f.append('key_findings_bullet_1', 'Coupon field clears on reload');
  f.append('key_findings_bullet_2', 'Pay button hidden behind the cookie banner');
  f.append('key_findings_bullet_3', 'Totals update slowly');
  f.append('files', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'cart.png');
  f.append('files', new Blob([new Uint8Array(webp)], { type: 'image/webp' }), 'banner.webp');
  const s = await api(h, 'POST', `/api/jobs/${job.id}/submissions`, t.token, f);
  if (s.status !== 201) throw new Error(`submit ${s.status} ${JSON.stringify(s.body)}`);
  if (opts.accept !== false)
    expect(
      (await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, { decision: 'accept' })).status,
    ).toBe(200);
  return { job, p, t };
}

describe('share link', () => {
  it('gives the poster one live link that reads signed out, and 404 after revoke', async () => {
    const { job, p, t } = await reportedJob();
    const made = await api<Share>(h, 'POST', `/api/jobs/${job.id}/share`, p.token, {
      expires_in_days: 7,
    });
    expect(made.status).toBe(201);
    expect(made.body.url).toBe(`/r/${made.body.token}`);
    expect(Buffer.from(made.body.token, 'base64url').length).toBeGreaterThanOrEqual(16);
    const days = (Date.parse(made.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    // Asking again answers the same link (and the same expiry).
    const again = await api<Share>(h, 'POST', `/api/jobs/${job.id}/share`, p.token, {});
    expect(again.status).toBe(201);
    expect(again.body).toEqual(made.body);
    // Only a hash is stored.
    const rows = await h.svc.ctx.dbHandle.query<{ token_hash: string; nonce: string }>(
      'SELECT token_hash, nonce FROM jobs.share_links WHERE job_id = $1',
      [job.id],
    );
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(made.body.token);

    const shared = await api<SharedReportView>(h, 'GET', `/api/shared/${made.body.token}`);
    expect(shared.status).toBe(200);
    expect(shared.headers.get('x-robots-tag')).toContain('noindex');
    expect(shared.headers.get('referrer-policy')).toBe('no-referrer');
    expect(shared.body.job.title).toBe('Checkout on mobile');
    expect(shared.body.tester).toEqual({ first_name: 'Sam', country: 'CA' });
    expect(shared.body.findings.map((f) => f.text)).toEqual([
      'Coupon field clears on reload',
      'Pay button hidden behind the cookie banner',
      'Totals update slowly',
    ]);
    expect(shared.body.requirement_responses[1]).toEqual({
      requirement: 'Does the confirmation e-mail arrive?',
      response_text: 'It arrived after a minute.',
    });
    expect(shared.body.screenshots).toHaveLength(2);
    const text = JSON.stringify(shared.body);
    expect(text).not.toContain(p.email);
    expect(text).not.toContain(t.email);
    expect(text).not.toContain('@');

    // Screenshots through the token; another job's file is not reachable through it.
    const shot = await fetch(`${h.svc.url}${shared.body.screenshots[0].url}`);
    expect(shot.status).toBe(200);
    expect(shot.headers.get('content-type')).toBe('image/png');
    const other = await reportedJob();
    const otherView = await api(h, 'GET', `/api/jobs/${other.job.id}/submission`, other.p.token);
    const otherFileId = /\/api\/files\/([0-9a-f-]+)/.exec(otherView.body.file_urls![0])![1];
    expect(
      (await fetch(`${h.svc.url}/api/shared/${made.body.token}/files/${otherFileId}`)).status,
    ).toBe(404);

    // The page, signed out.
    const page = await fetch(`${h.svc.url}/r/${made.body.token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('Checkout on mobile');
    expect(html).toContain('Coupon field clears on reload');
    expect(html).toContain('Download PDF');
    expect(html).not.toContain('<script');
    expect(html).not.toContain(t.email);

    // Revoked: the JSON, the page, the files and the PDF are gone; a new link is a new token.
    expect((await api(h, 'DELETE', `/api/jobs/${job.id}/share`, p.token)).status).toBe(204);
    const gone = await api<Share>(h, 'GET', `/api/shared/${made.body.token}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: 'link_gone', detail: 'This link is no longer valid.' });
    const gonePage = await fetch(`${h.svc.url}/r/${made.body.token}`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(gonePage.status).toBe(404);
    expect(gonePage.headers.get('content-type')).toContain('text/html');
    expect(await gonePage.text()).toContain('This link is no longer valid.');
    const goneJson = await api<Share>(h, 'GET', `/r/${made.body.token}`);
    expect(goneJson.status).toBe(404);
    expect(goneJson.body).toMatchObject({ code: 'link_gone' });
    expect((await fetch(`${h.svc.url}${shared.body.screenshots[0].url}`)).status).toBe(404);
    expect((await fetch(`${h.svc.url}/api/shared/${made.body.token}/report.pdf`)).status).toBe(404);
    const fresh = await api<Share>(h, 'POST', `/api/jobs/${job.id}/share`, p.token);
    expect(fresh.status).toBe(201);
    expect(fresh.body.token).not.toBe(made.body.token);
  });

  it('answers 404 for an expired link and makes a new one when asked', async () => {
    const { job, p } = await reportedJob();
    const made = await api<Share>(h, 'POST', `/api/jobs/${job.id}/share`, p.token);
    await h.svc.ctx.dbHandle.query(
      "UPDATE jobs.share_links SET expires_at = now() - interval '1 second' WHERE job_id = $1",
      [job.id],
    );
    expect((await api(h, 'GET', `/api/shared/${made.body.token}`)).status).toBe(404);
    expect((await api(h, 'GET', `/api/shared/${'x'.repeat(43)}`)).status).toBe(404);
    expect((await api(h, 'GET', '/api/shared/short')).status).toBe(404);
    const next = await api<Share>(h, 'POST', `/api/jobs/${job.id}/share`, p.token);
    expect(next.body.token).not.toBe(made.body.token);
    expect((await api(h, 'GET', `/api/shared/${next.body.token}`)).status).toBe(200);
  });

  it('is for the poster or the admin, of a job with a submission, with a valid expiry', async () => {
    const { job, p, t } = await reportedJob();
    const stranger = await poster(h);
    expect(
      (await api<Share>(h, 'POST', `/api/jobs/${job.id}/share`, stranger.token)).body.code,
    ).toBe('not_job_poster');
    expect((await api(h, 'POST', `/api/jobs/${job.id}/share`, t.token)).status).toBe(403);
    expect((await api(h, 'DELETE', `/api/jobs/${job.id}/share`, stranger.token)).status).toBe(403);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/share`)).status).toBe(401);
    const a = await admin(h);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/share`, a.token)).status).toBe(201);
    for (const bad of [0, 366, 2.5, 'ten']) {
      const r = await api<Share>(h, 'POST', `/api/jobs/${job.id}/share`, p.token, {
        expires_in_days: bad,
      });
      expect(r.status).toBe(400);
      expect(r.body.errors.expires_in_days).toEqual([
        'expires_in_days must be a whole number from 1 to 365',
      ]);
    }
    const unsubmitted = await paidJob(h, p);
    expect(
      (await api<Share>(h, 'POST', `/api/jobs/${unsubmitted.id}/share`, p.token)).body.code,
    ).toBe('no_submission');
  });

  it('shares only the preview while the work is not accepted', async () => {
    const { job, p } = await reportedJob({ accept: false });
    const made = await api<Share>(h, 'POST', `/api/jobs/${job.id}/share`, p.token);
    const shared = await api<SharedReportView>(h, 'GET', `/api/shared/${made.body.token}`);
    expect(shared.body.locked).toBe(true);
    expect(shared.body.general_feedback).toBeNull();
    expect(shared.body.requirement_responses).toEqual([]);
    expect(shared.body.screenshots).toHaveLength(1);
    expect((await fetch(`${h.svc.url}${shared.body.screenshots[0].url}`)).status).toBe(200);
  });
});

describe('PDF report', () => {
  const pdfText = (bytes: ArrayBuffer) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'report-pdf-'));
    const file = path.join(dir, 'r.pdf');
    writeFileSync(file, Buffer.from(bytes));
    return {
      text: execFileSync('pdftotext', ['-layout', file, '-']).toString('utf8'),
      images: execFileSync('pdfimages', ['-list', file]).toString('utf8'),
    };
  };

  it('answers the poster a PDF whose text is real, with both screenshots embedded', async () => {
    const { job, p } = await reportedJob();
    const res = await fetch(`${h.svc.url}/api/jobs/${job.id}/report.pdf`, {
      headers: { authorization: `Bearer ${p.token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="report-${job.id.slice(0, 8)}.pdf"`,
    );
    const { text, images } = pdfText(await res.arrayBuffer());
    for (const s of [
      'Checkout on mobile',
      'https://shop.example.com/cart',
      'Tested by Sam, CA',
      'Coupon field clears on reload',
      'Pay button hidden behind the cookie banner',
      'It arrived after a minute.',
      'Screenshot: cart.png',
      'Screenshot: banner.webp',
    ])
      expect(text).toContain(s);
    expect(text).not.toContain(p.email);
    // pdfimages -list: two header lines, then one line per image (the WebP converted to PNG by
    // sharp, the transparent PNG put onto white: no soft mask for pdfkit to compute pixel by pixel).
    const rows = images.trim().split('\n').slice(2);
    expect(rows.filter((r) => / image /.test(r)).length).toBeGreaterThanOrEqual(2);
    expect(rows.filter((r) => / smask /.test(r))).toEqual([]);
  });

  it('is also served through the share token, and refused to others', async () => {
    const { job, p, t } = await reportedJob();
    expect(
      (
        await fetch(`${h.svc.url}/api/jobs/${job.id}/report.pdf`, {
          headers: { authorization: `Bearer ${t.token}` },
        })
      ).status,
    ).toBe(403);
    const made = await api<Share>(h, 'POST', `/api/jobs/${job.id}/share`, p.token);
    const res = await fetch(`${h.svc.url}/api/shared/${made.body.token}/report.pdf`);
    expect(res.status).toBe(200);
    expect(pdfText(await res.arrayBuffer()).text).toContain('Coupon field clears on reload');
  });
});

describe('health check (site-check told it)', () => {
  const kept = async (jobIds: string[]) =>
    (
      await h.svc.ctx.dbHandle.query<{ job_id: string }>(
        'SELECT job_id FROM jobs.site_checks WHERE job_id = ANY($1)',
        [jobIds],
      )
    ).map((r) => r.job_id);

  it('is on the shared report, and leaves with the jobs a deleted poster withdrew', async () => {
    const { job, p } = await reportedJob();
    const unstarted = await paidJob(h, p, { title: 'Nobody took this one' });
    for (const id of [job.id, unstarted.id]) await siteCheckFailed(h, id);
    const made = await api<Share>(h, 'POST', `/api/jobs/${job.id}/share`, p.token);
    const shared = await api<SharedReportView>(h, 'GET', `/api/shared/${made.body.token}`);
    expect(shared.body.health_check).toMatchObject({ state: 'failed' });
    expect(shared.body.health_check?.failure?.reason).toBe('unreachable');

    const deleted = await publish(h, 'UserDeleted', p.id, {
      userId: p.id,
      pseudonym: randomUUID(),
      email: p.email,
      type: 'poster',
      deletedAt: new Date().toISOString(),
    });
    await waitFor(() => handled(h, deleted.id), 'UserDeleted handled');
    // The job a tester did keeps its report and its health check; the withdrawn one keeps none,
    // and a late announcement for it is not kept either.
    expect(await kept([job.id, unstarted.id])).toEqual([job.id]);
    await siteCheckFailed(h, unstarted.id);
    expect(await kept([unstarted.id])).toEqual([]);
  });
});
