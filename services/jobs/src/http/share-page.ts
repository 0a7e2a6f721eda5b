import { escapeHtml } from '@htm/service-kit/html';
import { formatMoment, REPORT_MESSAGES, type SharedReportView } from '@htm/contracts';

/**
 * The read-only report page of a share link (/r/:token): rendered here, without script, so it is
 * fast on a phone and has nothing to run; styled with style attributes only, which the web app's
 * CSP (sent by the gateway) allows, so the page needs no policy of its own.
 */

const S = {
  body: 'margin:0;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f6f7f9;color:#1a1d23;line-height:1.5',
  main: 'max-width:760px;margin:0 auto;padding:16px',
  brand: 'font-size:14px;color:#555;margin:0 0 8px',
  h1: 'font-size:24px;line-height:1.25;margin:0 0 4px;overflow-wrap:anywhere',
  h2: 'font-size:18px;margin:24px 0 8px',
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

const date = (iso: string) =>
  new Date(iso).toLocaleDateString('en-US', {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    timeZone: 'UTC',
  });

function shell(title: string, body: string): string {
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
</body>
</html>
`;
}

export function sharePage(r: SharedReportView): string {
  const e = escapeHtml;
  const tester = [r.tester.first_name, r.tester.country].filter(Boolean).join(', ');
  const findings = r.findings.length
    ? r.findings
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
          const moment =
            f.at_ms !== null && r.recording
              ? `<p style="margin:8px 0 0"><a style="${S.link}" href="${e(`${r.recording.url}#t=${(f.at_ms / 1000).toFixed(1)}`)}">Watch at ${formatMoment(f.at_ms)}</a></p>`
              : '';
          return `<li style="${S.card}" aria-label="Finding ${i + 1}"><p style="${S.p}">${badge(f.severity)}${e(f.text)}</p>${details ? `<dl style="${S.dl}">${details}</dl>` : ''}${moment}</li>`;
        })
        .join('\n')
    : `<li style="${S.card}">No findings were written.</li>`;
  const recording = r.recording
    ? `<h2 style="${S.h2}">Recording</h2><video style="${S.video}" controls preload="metadata" playsinline src="${e(r.recording.url)}"${r.recording.mime_type ? '' : ''}></video>`
    : '';
  const checklist = r.requirement_responses.length
    ? `<h2 style="${S.h2}">Checklist</h2>${r.requirement_responses.map((x) => `<div style="${S.card}"><p style="${S.p};font-weight:600">${e(x.requirement)}</p><p style="${S.p}">${e(x.response_text)}</p></div>`).join('\n')}`
    : '';
  const feedback = r.general_feedback
    ? `<h2 style="${S.h2}">Overall feedback</h2><div style="${S.card}"><p style="${S.p}">${e(r.general_feedback)}</p></div>`
    : '';
  const shots = r.screenshots.length
    ? `<h2 style="${S.h2}">Screenshots</h2>${r.screenshots.map((s, i) => `<img style="${S.img}" loading="lazy" src="${e(s.url)}" alt="${e(s.name ? `Screenshot: ${s.name}` : `Screenshot ${i + 1}`)}">`).join('\n')}`
    : '';
  const body = `<p style="${S.brand}">Website test report</p>
<h1 style="${S.h1}">${e(r.job.title)}</h1>
<p style="${S.meta}"><a style="${S.link}" href="${e(r.job.url)}" rel="noopener noreferrer nofollow">${e(r.job.url)}</a></p>
<p style="${S.meta}">Tested by ${e(tester || 'a tester')} · ${e(date(r.submitted_at))}${r.device_used || r.browser_used ? ` · ${e([r.device_used, r.browser_used].filter(Boolean).join(', '))}` : ''}</p>
<a style="${S.button}" href="${e(r.pdf_url)}" download>Download PDF</a>
${r.locked ? `<p style="${S.note}">This is the preview of the report: the full report appears here once the site owner accepts the work.</p>` : ''}
${recording}
<h2 style="${S.h2}">Findings</h2>
<ol style="list-style:none;padding:0;margin:0">
${findings}
</ol>
${checklist}
${feedback}
${shots}
<p style="${S.footer}">A read-only copy shared by the site owner. This link works until ${e(date(r.expires_at))}.</p>`;
  return shell(`${e(r.job.title)}: test report`, body);
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
