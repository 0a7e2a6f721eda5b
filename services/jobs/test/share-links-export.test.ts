/**
 * "Download my data" lists the poster's share links saying what each shares (issue #51's pack
 * link shares every tester's report, a job's link one) and whether it still opens: a revoked link
 * is listed as revoked (and opens nothing), an expired one as expired, a live one with its end.
 * Read as identity reads it when it builds the archive (/internal/privacy/users/{id}/export).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ShareLinkView } from '@htm/contracts';
import { mintServiceToken } from '@htm/service-kit';
import {
  api,
  paidJob,
  paidPack,
  poster,
  SECRET,
  startHarness,
  tester,
  type Harness,
  type Person,
} from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('share_links_export');
});
afterAll(async () => {
  await h?.close();
});

interface ExportedLink {
  label: string;
  status: string;
  state: string;
  scope: string;
  jobId?: string;
  packId?: string;
  revokedAt: string | null;
}

async function exportedLinks(who: Person): Promise<ExportedLink[]> {
  const res = await fetch(`${h.svc.url}/internal/privacy/users/${who.id}/export`, {
    headers: { authorization: `Bearer ${await mintServiceToken(SECRET, 'identity')}` },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { share_links: ExportedLink[] } };
  return body.data.share_links;
}

async function submit(t: Person, jobId: string, finding: string) {
  expect((await api(h, 'POST', `/api/jobs/${jobId}/claim`, t.token)).status).toBe(200);
  const f = new FormData();
  f.append('feedback_text', `I went through the site and noted this: ${finding}.`);
  f.append('key_finding_1', finding);
  expect((await api(h, 'POST', `/api/jobs/${jobId}/submit-work`, t.token, f)).status).toBe(201);
}

describe("the data export's share links", () => {
  it('says what each link shares and marks a revoked one revoked', async () => {
    const p = await poster(h);
    const [t1, t2] = [await tester(h), await tester(h)];
    const { packId, jobs } = await paidPack(h, p, 3, { title: 'Mug shop' });
    await submit(t1, jobs[0].id, 'The basket icon is hidden on a phone');
    const job = await paidJob(h, p, { title: 'Cake shop' });
    await submit(t2, job.id, 'Opening hours are missing');

    const packLink = await api<ShareLinkView>(h, 'POST', `/api/packs/${packId}/share`, p.token, {});
    expect(packLink.status).toBe(201);
    const jobLink = await api<ShareLinkView>(h, 'POST', `/api/jobs/${job.id}/share`, p.token, {});
    expect(jobLink.status).toBe(201);
    expect((await api(h, 'GET', `/api/shared/${jobLink.body.token}`)).status).toBe(200);
    expect((await api(h, 'DELETE', `/api/jobs/${job.id}/share`, p.token)).status).toBe(204);
    // Revoked: it opens nothing, as before.
    expect((await api(h, 'GET', `/api/shared/${jobLink.body.token}`)).status).toBe(404);

    const links = await exportedLinks(p);
    const byLabel = (label: string) => links.find((l) => l.label === label);
    expect(links).toHaveLength(2);
    expect(byLabel("Share link for pack 'Mug shop' (all 3 testers' reports)")).toMatchObject({
      status: 'live',
      scope: 'pack',
      packId,
      revokedAt: null,
      state: expect.stringMatching(/^Anyone with the link can read it until \d{4}-\d\d-\d\d\.$/),
    });
    expect(byLabel("Share link for the report on 'Cake shop' (one tester's report)")).toMatchObject(
      {
        status: 'revoked',
        scope: 'job',
        jobId: job.id,
        revokedAt: expect.any(String),
        state: expect.stringMatching(
          /^Revoked on \d{4}-\d\d-\d\d: it no longer opens the report\.$/,
        ),
      },
    );
    // A tester who shared nothing has no links in their export.
    expect(await exportedLinks(t1)).toEqual([]);

    // A new link takes the revoked one's place: a new token that opens, listed live.
    const again = await api<ShareLinkView>(h, 'POST', `/api/jobs/${job.id}/share`, p.token, {});
    expect(again.status).toBe(201);
    expect(again.body.token).not.toBe(jobLink.body.token);
    expect((await api(h, 'GET', `/api/shared/${again.body.token}`)).status).toBe(200);
    expect((await api(h, 'GET', `/api/shared/${jobLink.body.token}`)).status).toBe(404);
    expect((await exportedLinks(p)).find((l) => l.jobId === job.id)).toMatchObject({
      status: 'live',
      revokedAt: null,
    });
    // Revoking the pack's link marks it too.
    expect((await api(h, 'DELETE', `/api/packs/${packId}/share`, p.token)).status).toBe(204);
    expect((await api(h, 'GET', `/api/shared/${packLink.body.token}`)).status).toBe(404);
    expect((await exportedLinks(p)).find((l) => l.packId === packId)).toMatchObject({
      label: "Share link for pack 'Mug shop' (all 3 testers' reports)",
      status: 'revoked',
    });
  });
});
