import { escapeHtml } from '@htm/service-kit/html';
import {
  formatMoment,
  HEALTH_CHECK_TITLE,
  healthCheckLines,
  machineLine,
  REPORT_MESSAGES,
  reelIntro,
  SUMMARY_LIMITS,
  SUMMARY_TEXT,
  susLine,
  taskBeforeAfter,
  taskFacts,
  testersHitText,
  thingToCheckOf,
  type HealthCheckView,
  type ReportSummary,
  type SharedPackView,
  type SharedReportView,
  type SummaryEvidence,
} from '@htm/contracts';

/**
 * The read-only report page of a share link (/r/:token): rendered here, so it is fast on a phone;
 * styled with style attributes only, which the web app's CSP (sent by the gateway) allows, so the
 * page needs no policy of its own. It works without script; its one script, the web app's
 * /share-reel.js (same origin), plays the highlight reel clip after clip.
 */

const S = {
  body: 'margin:0;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f6f7f9;color:#1a1d23;line-height:1.5',
  main: 'max-width:760px;margin:0 auto;padding:16px',
  brand: 'font-size:14px;color:#555;margin:0 0 8px',
  h1: 'font-size:24px;line-height:1.25;margin:0 0 4px;overflow-wrap:anywhere',
  h2: 'font-size:18px;margin:24px 0 8px',
  h3: 'font-size:16px;margin:16px 0 8px;overflow-wrap:anywhere',
  h4: 'font-size:15px;margin:12px 0 6px',
  reel: 'margin:24px 0 0;padding:12px 14px;background:#fff;border:1px solid #dde1e6;border-radius:8px',
  step: 'display:inline-block;padding:8px 14px;border:1px solid #1f5fd1;border-radius:6px;color:#1f5fd1;text-decoration:none;font-weight:600',
  toggle:
    'padding:8px 18px;border:0;border-radius:6px;background:#1f5fd1;color:#fff;font:inherit;font-weight:600;cursor:pointer',
  clip: 'display:block;padding:6px 10px;border:1px solid #dde1e6;border-radius:6px;color:#1a1d23;text-decoration:none;overflow-wrap:anywhere',
  /** The clip playing (share-reel.js sets the same two properties as the clips change). */
  clipCurrent: 'border-color:#1f5fd1;background:#e8eeff',
  worked:
    'margin:8px 0 0;padding:8px 12px;background:#e5f6ee;border-radius:8px;overflow-wrap:anywhere',
  meta: 'margin:0;color:#444;font-size:15px;overflow-wrap:anywhere',
  card: 'background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:12px 14px;margin:0 0 12px',
  button:
    'display:inline-block;margin:12px 0 0;padding:10px 16px;background:#1f5fd1;color:#fff;border-radius:6px;text-decoration:none;font-weight:600',
  note: 'background:#fff7e0;border:1px solid #f0d48a;border-radius:8px;padding:10px 14px;margin:16px 0 0',
  img: 'display:block;max-width:100%;height:auto;border:1px solid #dde1e6;border-radius:6px;margin:0 0 12px',
  video: 'display:block;width:100%;max-height:70vh;background:#000;border-radius:6px',
  dl: 'margin:8px 0 0',
  dt: 'font-weight:600;font-size:14px;margin:8px 0 0',
  dd: 'margin:0;white-space:pre-wrap;overflow-wrap:anywhere',
  p: 'margin:0;white-space:pre-wrap;overflow-wrap:anywhere',
  link: 'color:#1f5fd1',
  footer: 'margin:32px 0 8px;font-size:13px;color:#666',
  cta: 'margin:0 0 16px;padding:12px 14px;background:#fff;border:1px solid #dde1e6;border-radius:8px;font-size:15px',
} as const;

const SEVERITY_COLOURS: Record<string, string> = {
  blocker: '#b00020',
  major: '#c25100',
  minor: '#6b5d00',
  cosmetic: '#44536b',
};

const badge = (severity: string | null) =>
  severity
    ? `<span style="display:inline-block;font-size:12px;font-weight:700;text-transform:uppercase;letter-spacing:.03em;color:#fff;background:${SEVERITY_COLOURS[severity] ?? '#44536b'};border-radius:4px;padding:1px 6px;margin:0 8px 0 0">${escapeHtml(severity)}</span>`
    : '';

/** What the page's address asks for (share.routes.ts reads it). */
export interface SharePageOptions {
  /** ?t=: a finding's "Watch at" starts the job's recording there. */
  startAtMs?: number | null;
  /** ?clip=: the reel opens at this clip. */
  clip?: number | null;
  /** ?moment=: a piece of proof, played in the reel as one more clip. */
  moment?: { submissionId: string; findingIndex: number } | null;
}

const date = (iso: string) =>
  new Date(iso).toLocaleDateString('en-US', {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    timeZone: 'UTC',
  });

function shell(title: string, body: string, script = false): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
</head>
<body style="${S.body}">
<main style="${S.main}">
${body}
</main>
${script ? '<script type="module" src="/share-reel.js"></script>\n' : ''}</body>
</html>
`;
}

/** The owner's report's colours (white text on them reads at 4.5:1 or better). */
const IMPACT_COLOURS: Record<string, string> = {
  critical: '#b00020',
  serious: '#a84300',
  moderate: '#665800',
  minor: '#44536b',
};

/** The machine health check, in the same words as the owner's report and the PDF. */
function healthSection(h: HealthCheckView | null): string {
  if (!h) return '';
  const e = escapeHtml;
  const lines = healthCheckLines(h, date);
  const items = lines.findings
    .map(
      (f) =>
        // The level in words as well as in colour, as in the owner's report.
        `<li style="${S.card}"><p style="${S.p}"><span style="display:inline-block;min-width:6.6em;text-align:center;font-size:12px;font-weight:700;text-transform:uppercase;letter-spacing:0.03em;color:#fff;background:${IMPACT_COLOURS[f.impact] ?? '#44536b'};border-radius:4px;padding:1px 6px;margin:0 8px 0 0">${e(f.impact)}</span>${e(f.text)}</p></li>`,
    )
    .join('\n');
  return `<h2 style="${S.h2}">${HEALTH_CHECK_TITLE}</h2>
<p style="${S.meta}">${e(lines.intro)}</p>
${items ? `<ul style="list-style:none;padding:0;margin:8px 0 0">\n${items}\n</ul>` : ''}
${lines.more ? `<p style="${S.meta}">And ${lines.more} more in the full health check.</p>` : ''}
${lines.speed ? `<p style="${S.meta}">${e(lines.speed)}</p>` : ''}`;
}

type Finding = SharedReportView['findings'][number];

/** A report's findings as cards (`#finding-N`, or `#<prefix>finding-N` on a pack's page). */
function findingsList(
  findings: Finding[],
  momentHref: (f: Finding) => string | null,
  prefix = '',
): string {
  const e = escapeHtml;
  if (!findings.length) return `<li style="${S.card}">No findings were written.</li>`;
  return findings
    .map((f, i) => {
      const details = [
        f.steps
          ? `<dt style="${S.dt}">Steps to reproduce</dt><dd style="${S.dd}">${e(f.steps)}</dd>`
          : '',
        f.expected
          ? `<dt style="${S.dt}">Expected</dt><dd style="${S.dd}">${e(f.expected)}</dd>`
          : '',
        f.actual
          ? `<dt style="${S.dt}">What happened</dt><dd style="${S.dd}">${e(f.actual)}</dd>`
          : '',
      ].join('');
      const href = f.at_ms !== null ? momentHref(f) : null;
      const moment =
        href && f.at_ms !== null
          ? `<p style="margin:8px 0 0"><a style="${S.link}" href="${e(href)}">Watch at ${formatMoment(f.at_ms)}</a></p>`
          : '';
      const id = f.index !== undefined ? ` id="${prefix}finding-${f.index + 1}"` : '';
      return `<li style="${S.card}"${id} aria-label="Finding ${i + 1}"><p style="${S.p}">${badge(f.severity)}${e(f.text)}</p>${details ? `<dl style="${S.dl}">${details}</dl>` : ''}${moment}</li>`;
    })
    .join('\n');
}

/** The checklist, the feedback and the screenshots of one report. */
function reportRest(
  r: Pick<SharedReportView, 'requirement_responses' | 'general_feedback' | 'screenshots'>,
  h = 'h2',
): string {
  const e = escapeHtml;
  const style = h === 'h2' ? S.h2 : S.h3;
  const checklist = r.requirement_responses.length
    ? `<${h} style="${style}">Checklist</${h}>${r.requirement_responses.map((x) => `<div style="${S.card}"><p style="${S.p};font-weight:600">${e(x.requirement)}</p><p style="${S.p}">${e(x.response_text)}</p></div>`).join('\n')}`
    : '';
  const feedback = r.general_feedback
    ? `<${h} style="${style}">Overall feedback</${h}><div style="${S.card}"><p style="${S.p}">${e(r.general_feedback)}</p></div>`
    : '';
  const shots = r.screenshots.length
    ? `<${h} style="${style}">Screenshots</${h}>${r.screenshots.map((x, i) => `<img style="${S.img}" loading="lazy" src="${e(x.url)}" alt="${e(x.name ? `Screenshot: ${x.name}` : `Screenshot ${i + 1}`)}">`).join('\n')}`
    : '';
  return `${checklist}\n${feedback}\n${shots}`;
}

/** The reel's clips as the page plays them (a chosen piece of proof: one more clip at the end). */
interface PageClip {
  url: string;
  start_ms: number;
  end_ms: number;
  caption: string;
}

const momentParam = (e: Pick<SummaryEvidence, 'submission_id' | 'finding_index'>) =>
  `?moment=${e.submission_id}:${e.finding_index}#reel`;

/** The clip around a moment, as the summary's reel cuts it (from 5 s before to 10 s after). */
const clipAround = (url: string, atMs: number, caption: string): PageClip => ({
  url,
  start_ms: Math.max(0, atMs - SUMMARY_LIMITS.clipBeforeMs),
  end_ms: atMs + SUMMARY_LIMITS.clipAfterMs,
  caption,
});

/** The clip a ?moment= names: a piece of the summary's proof, or (a pack) a tester's finding. */
function momentClip(
  summary: ReportSummary | null | undefined,
  reports: Array<{
    submission_id?: string;
    tester: { first_name: string };
    findings: Finding[];
    recording: { url: string } | null;
  }>,
  m: NonNullable<SharePageOptions['moment']>,
): PageClip | null {
  for (const p of summary?.problems ?? [])
    for (const ev of p.evidence)
      if (
        ev.submission_id === m.submissionId &&
        ev.finding_index === m.findingIndex &&
        ev.at_ms !== null &&
        ev.recording_url
      )
        return clipAround(
          ev.recording_url,
          ev.at_ms,
          `${ev.tester || 'A tester'}: ${ev.text ?? p.title}`,
        );
  for (const r of reports) {
    if (r.submission_id !== m.submissionId || !r.recording) continue;
    const f = r.findings.find((x) => x.index === m.findingIndex);
    if (f?.at_ms != null)
      return clipAround(
        r.recording.url,
        f.at_ms,
        `${r.tester.first_name || 'A tester'}: ${f.text}`,
      );
  }
  return null;
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/**
 * The highlight reel (issue #51), played without script: the current clip in a <video> whose
 * address starts and stops it there (a media fragment; the browser fetches the recording with
 * Range requests), each clip a link to this page at it (?clip=N), Previous / Next links.
 * /share-reel.js (the data-reel-* attributes) plays them one after another and adds Play / Pause
 * and the keys.
 */
function reelSection(clips: PageClip[], at: number): string {
  const e = escapeHtml;
  const i = Math.min(Math.max(0, at), clips.length - 1);
  const c = clips[i];
  const step = (label: string, to: number, disabled: boolean, attr: string) =>
    `<a style="${S.step}${disabled ? ';opacity:.5' : ''}" href="?clip=${to}#reel" ${attr}${disabled ? ' aria-disabled="true"' : ''}>${label}</a>`;
  const items = clips
    .map(
      (x, k) =>
        `<li style="margin:0 0 6px"><a style="${S.clip}${k === i ? `;${S.clipCurrent}` : ''}" href="?clip=${k}#reel" data-reel-clip data-url="${e(x.url)}" data-start="${x.start_ms}" data-end="${x.end_ms}" data-caption="${e(x.caption)}"${k === i ? ' aria-current="true"' : ''}><span style="color:#555">${formatMoment(x.start_ms)}–${formatMoment(x.end_ms)}</span> ${e(x.caption)}</a></li>`,
    )
    .join('\n');
  // Only the summary's own clips count in the intro (a chosen moment is one more).
  return `<section id="reel" data-reel aria-labelledby="reel-title" style="${S.reel}">
<h2 style="${S.h2};margin-top:0" id="reel-title">${SUMMARY_TEXT.reel}</h2>
<p style="${S.meta}">${e(reelIntro(clips))}</p>
<video data-reel-video style="${S.video};margin:8px 0 0" controls preload="metadata" playsinline aria-describedby="reel-caption" src="${e(`${c.url}#t=${seconds(c.start_ms)},${seconds(c.end_ms)}`)}"></video>
<p id="reel-caption" data-reel-caption aria-live="polite" style="${S.p};margin:8px 0 0"><strong>Clip ${i + 1} of ${clips.length}:</strong> ${e(c.caption)}</p>
<div role="group" aria-label="Reel controls" style="display:flex;flex-wrap:wrap;gap:8px;margin:8px 0">
${step('Previous clip', Math.max(0, i - 1), i === 0, 'data-reel-previous')}
<button type="button" data-reel-toggle hidden style="${S.toggle}">Play</button>
${step('Next clip', Math.min(clips.length - 1, i + 1), i === clips.length - 1, 'data-reel-next')}
</div>
<ol aria-label="Clips" style="list-style:none;padding:0;margin:0">
${items}
</ol>
<p data-reel-keys hidden style="${S.meta};font-size:13px">Keys: K play or pause, N next clip, P previous clip.</p>
</section>`;
}

/**
 * The verdict at the top of the page (issue #51), in the words of the owner's report: what to fix
 * first (each problem's proof behind a disclosure: the testers' words, a link that plays the
 * moment in the reel, the finding, the screenshot), what worked, how each thing to check went,
 * SUS. `findingHref` says where a piece of proof's finding is on this page.
 */
function summarySection(
  summary: ReportSummary,
  title: string,
  findingHref: (e: SummaryEvidence) => string | null,
): string {
  const e = escapeHtml;
  const problems = summary.problems.length
    ? `<ol style="padding:0 0 0 1.4em;margin:0">${summary.problems
        .map((p, i) => {
          const thing = thingToCheckOf(summary, p);
          const proof = p.evidence
            .map((ev) => {
              const who = e(ev.tester || 'A tester');
              const links = [
                ev.at_ms !== null && ev.recording_url
                  ? `<a style="${S.link}" href="${e(momentParam(ev))}">Play ${formatMoment(ev.at_ms)}</a>`
                  : '',
                findingHref(ev)
                  ? `<a style="${S.link}" href="${e(findingHref(ev)!)}">Finding</a>`
                  : '',
                ev.screenshot_url
                  ? `<a style="${S.link}" href="${e(ev.screenshot_url)}" target="_blank" rel="noopener">Screenshot</a>`
                  : '',
              ]
                .filter(Boolean)
                .join(' · ');
              return `<li style="margin:6px 0 0;overflow-wrap:anywhere">${who}: “${e(ev.text ?? p.title)}”${links ? ` · ${links}` : ''}</li>`;
            })
            .join('');
          return `<li style="${S.card}" id="problem-${i + 1}"><p style="${S.p}">${badge(p.severity)}<strong>${e(p.title)}</strong></p>
<p style="${S.meta}">${e(testersHitText(p))}${thing ? ` · ${e(thing)}` : ''}</p>
${machineLine(p) ? `<p style="${S.meta};font-size:14px">${e(machineLine(p)!)}</p>` : ''}
<details style="margin:6px 0 0"><summary style="cursor:pointer;color:#1f5fd1">Proof (${p.evidence.length})</summary><ul style="padding:0 0 0 1.2em;margin:0">${proof}</ul></details></li>`;
        })
        .join('\n')}</ol>`
    : `<p style="${S.meta}">${SUMMARY_TEXT.noProblems}</p>`;
  const worked = summary.worked.length
    ? `<p style="${S.worked}"><strong>${SUMMARY_TEXT.worked}:</strong> ${e(summary.worked.join('; '))}</p>`
    : '';
  const answered = summary.tasks.filter((t) => t.n > 0 || t.seq_n > 0 || t.median_time_ms !== null);
  const c = SUMMARY_TEXT.columns;
  const tasks = answered.length
    ? `<h3 style="${S.h3}">${SUMMARY_TEXT.tasks}</h3>${answered
        .map((t) => {
          const f = taskFacts(t);
          const change = taskBeforeAfter(t);
          return `<div style="${S.card}"><p style="${S.p};font-weight:600">${e(t.text)}</p><p style="${S.meta}">${c.success}: ${e(f.success)} · ${c.time}: ${e(f.time)} · ${c.ease}: ${e(f.ease)}</p><p style="${S.meta}">${e(f.sentence)}</p>${change ? `<p style="${S.meta}">${e(change)}</p>` : ''}</div>`;
        })
        .join('\n')}`
    : '';
  return `<section aria-labelledby="fix-first">
<h2 style="${S.h2}" id="fix-first">${e(title)}</h2>
${problems}
${worked}
${tasks}
${summary.sus ? `<p style="${S.meta};margin:8px 0 0">${e(susLine(summary.sus))}</p>` : ''}
${summary.locked ? `<p style="${S.note}">${SUMMARY_TEXT.lockedShared}</p>` : ''}
</section>`;
}

/** The summary and the reel a page leads with (the reel also plays a chosen piece of proof). */
function verdict(
  summary: ReportSummary | null | undefined,
  title: string,
  reports: Parameters<typeof momentClip>[1],
  opts: SharePageOptions,
  findingHref: (e: SummaryEvidence) => string | null,
): { html: string; reel: boolean } {
  const clips: PageClip[] = (summary?.reel ?? [])
    .filter((c) => !!c.url)
    .map((c) => ({ url: c.url!, start_ms: c.start_ms, end_ms: c.end_ms, caption: c.caption }));
  const chosen = opts.moment ? momentClip(summary, reports, opts.moment) : null;
  if (chosen) clips.push(chosen);
  const at = chosen ? clips.length - 1 : (opts.clip ?? 0);
  const html = [
    summary ? summarySection(summary, title, findingHref) : '',
    clips.length ? reelSection(clips, at) : '',
  ].join('\n');
  return { html, reel: clips.length > 0 };
}

const footer = (expiresAt: string) =>
  `<p style="${S.footer}">A read-only copy shared by the site owner. This link works until ${escapeHtml(date(expiresAt))}.</p>
<p style="${S.cta}">Made with HumanTest: real people test a website and report what they notice. <a style="${S.link}" href="/">Get your own test for $1</a>.</p>`;

const siteLines = (job: { title: string; url: string }) => {
  const e = escapeHtml;
  return `<p style="${S.brand}"><strong>HumanTest</strong> · website test report</p>
<h1 style="${S.h1}">${e(job.title)}</h1>
<p style="${S.meta}"><a style="${S.link}" href="${e(job.url)}" rel="noopener noreferrer nofollow">${e(job.url)}</a></p>`;
};

/**
 * The page of a share link: the summary and the reel first, then the report. `startAtMs` (the
 * page's ?t=, from a finding's "Watch at") starts the recording at that moment: a plain link to
 * this page (#recording).
 */
export function sharePage(r: SharedReportView, opts: SharePageOptions = {}): string {
  const e = escapeHtml;
  const startAtMs = opts.startAtMs ?? null;
  const start =
    startAtMs !== null &&
    r.recording &&
    startAtMs >= 0 &&
    (r.recording.duration_ms === null || startAtMs <= r.recording.duration_ms)
      ? startAtMs
      : null;
  const tester = [r.tester.first_name, r.tester.country].filter(Boolean).join(', ');
  const top = verdict(r.summary, SUMMARY_TEXT.fixFirst, [], opts, (ev) =>
    r.findings.some((f) => f.index === ev.finding_index)
      ? `#finding-${ev.finding_index + 1}`
      : null,
  );
  const recording = r.recording
    ? `<h2 style="${S.h2}" id="recording">Recording</h2>${start !== null ? `<p style="${S.meta}">Starts at ${formatMoment(start)}: press play.</p>` : ''}<video style="${S.video}" controls preload="metadata" playsinline src="${e(start !== null ? `${r.recording.url}#t=${(start / 1000).toFixed(1)}` : r.recording.url)}"></video>`
    : '';
  const body = `${siteLines(r.job)}
<p style="${S.meta}">Tested by ${e(tester || 'a tester')} · ${e(date(r.submitted_at))}${r.device_used || r.browser_used ? ` · ${e([r.device_used, r.browser_used].filter(Boolean).join(', '))}` : ''}</p>
<a style="${S.button}" href="${e(r.pdf_url)}" download>Download PDF</a>
${r.locked ? `<p style="${S.note}">This is the preview of the report: the full report appears here once the site owner accepts the work.</p>` : ''}
${top.html}
${recording}
<h2 style="${S.h2}">Findings</h2>
<ol style="list-style:none;padding:0;margin:0">
${findingsList(r.findings, (f) => (r.recording ? `?t=${(f.at_ms! / 1000).toFixed(1)}#recording` : null))}
</ol>
${reportRest(r)}
${healthSection(r.health_check)}
${footer(r.expires_at)}`;
  return shell(`${e(r.job.title)}: test report`, body, top.reel);
}

/**
 * The page of a pack's share link (issue #51): what the testers agree on (the pack's summary and
 * reel) first, then each tester's report, with its recording; a finding's moment plays in the reel.
 */
export function packSharePage(v: SharedPackView, opts: SharePageOptions = {}): string {
  const e = escapeHtml;
  const reportOf = new Map(v.reports.map((r, i) => [r.submission_id, i]));
  const top = verdict(v.summary, SUMMARY_TEXT.agree, v.reports, opts, (ev) => {
    const k = reportOf.get(ev.submission_id);
    return k === undefined ? null : `#tester-${k + 1}-finding-${ev.finding_index + 1}`;
  });
  const reports = v.reports
    .map((r, k) => {
      const who = [r.tester.first_name, r.tester.country].filter(Boolean).join(', ') || 'a tester';
      const setup = [r.device_used, r.browser_used].filter(Boolean).join(', ');
      const recording = r.recording
        ? `<video style="${S.video};margin:8px 0 0" controls preload="none" playsinline aria-label="${e(`Tester ${k + 1}'s screen recording`)}" src="${e(r.recording.url)}"></video>`
        : '';
      return `<section id="tester-${k + 1}" aria-labelledby="tester-${k + 1}-title" style="margin:0 0 24px">
<h3 style="${S.h3}" id="tester-${k + 1}-title">Tester ${k + 1}: ${e(who)}</h3>
<p style="${S.meta}">${e(date(r.submitted_at))}${setup ? ` · ${e(setup)}` : ''}</p>
${r.locked ? `<p style="${S.note}">A preview: the full report appears once the site owner accepts it.</p>` : ''}
${recording}
<h4 style="${S.h4}">Findings</h4>
<ol style="list-style:none;padding:0;margin:0">
${findingsList(r.findings, (f) => (r.recording ? momentParam({ submission_id: r.submission_id, finding_index: f.index ?? 0 }) : null), `tester-${k + 1}-`)}
</ol>
${reportRest(r, 'h4')}
</section>`;
    })
    .join('\n');
  const body = `${siteLines(v.job)}
<p style="${S.meta}">${v.pack.reported} of ${v.pack.size} testers have reported.</p>
<a style="${S.button}" href="${e(v.pdf_url)}" download>Download PDF</a>
${top.html}
<h2 style="${S.h2}">Each tester's report</h2>
${reports}
${healthSection(v.health_check)}
${footer(v.expires_at)}`;
  return shell(`${e(v.job.title)}: test report of ${v.pack.reported} testers`, body, top.reel);
}

/** What /r/:token shows for a revoked, expired or unknown link (answered 404). */
export function linkGonePage(): string {
  return shell(
    'Link no longer valid',
    `<p style="${S.brand}">Website test report</p>
<h1 style="${S.h1}">${escapeHtml(REPORT_MESSAGES.linkGone)}</h1>
<p style="${S.meta}">The report's owner may have revoked it, or it has expired. Ask them for a new link.</p>`,
  );
}
