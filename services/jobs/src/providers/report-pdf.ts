import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import {
  formatMoment,
  HEALTH_CHECK_TITLE,
  healthCheckLines,
  machineLine,
  severityCounts,
  severityWord,
  SUMMARY_TEXT,
  susLine,
  taskBeforeAfter,
  taskFacts,
  testersHitText,
  thingToCheckOf,
  type HealthCheckView,
  type PackTesterReportView,
  type ReportSummary,
  type SharedReportView,
} from '@htm/contracts';

export interface ReportImage {
  bytes: Buffer;
  contentType: string;
  name: string | null;
}

/** One tester's report in the PDF: the view, its screenshots, and its recording at a moment. */
export interface PdfReport {
  view: SharedReportView | PackTesterReportView;
  images: ReportImage[];
  /** Absolute address of the recording at a moment (ms), or null when there is no recording to link. */
  recordingAt(ms: number): string | null;
}

/** A job's report (one tester) or a pack's (each tester's, after what they agree on). */
export interface PdfInput {
  title: string;
  url: string;
  /** A pack: testers asked for and testers who reported. */
  pack?: { size: number; reported: number };
  /** The verdict on page 1 (issue #51), when it is computed. */
  summary: ReportSummary | null;
  /** A still of the video at each top problem's moment, by problem index (PNG). */
  stills: Map<number, Buffer>;
  reports: PdfReport[];
  healthCheck: HealthCheckView | null;
  /** The reader's origin: the summary's proof links are made absolute with it. */
  origin: string;
}

const SEVERITY_COLOURS: Record<string, string> = {
  blocker: '#b00020',
  major: '#c25100',
  minor: '#6b5d00',
  cosmetic: '#44536b',
};

const IMPACT_COLOURS: Record<string, string> = {
  critical: '#b00020',
  serious: '#a84300',
  moderate: '#6b5d00',
  minor: '#44536b',
};

/**
 * JPEG, and PNG that pdfkit embeds as it is (8 bits, not interlaced, no transparency), go in as
 * they are; anything else through sharp, onto white: a PNG with transparency (what a browser's or
 * a phone's screenshot often is) would have pdfkit decode every pixel in JavaScript and compress
 * its alpha apart, some 50 ms of the event loop for each 1280x800 screenshot (most of a pack's
 * PDF); WebP, GIF, ... become PNG.
 */
async function embeddable(img: ReportImage): Promise<Buffer | null> {
  if (img.contentType === 'image/jpeg') return img.bytes;
  try {
    if (img.contentType === 'image/png') {
      const m = await sharp(img.bytes).metadata();
      if (m.format === 'png' && !m.hasAlpha && m.depth === 'uchar' && !m.isProgressive)
        return img.bytes;
    }
    return await sharp(img.bytes, { animated: false })
      .flatten({ background: '#ffffff' })
      .png()
      .toBuffer();
  } catch {
    return null;
  }
}

const date = (iso: string) =>
  new Date(iso).toLocaleDateString('en-US', {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    timeZone: 'UTC',
  });

type Doc = InstanceType<typeof PDFDocument>;

const INK = '#1a1d23';
const LINK = '#1f5fd1';

/** Text helpers over one document (the page's width less its margins). */
function writer(doc: Doc) {
  const width = doc.page.width - 100;
  return {
    width,
    heading(text: string) {
      doc.moveDown(1).font('Helvetica-Bold').fontSize(14).fillColor(INK).text(text, 50);
      doc.moveDown(0.3);
    },
    body(text: string) {
      doc.font('Helvetica').fontSize(11).fillColor(INK).text(text, 50, undefined, { width });
    },
  };
}

/** The report's head: what was tested, and by whom (a job) or by how many (a pack). */
function head(doc: Doc, input: PdfInput): void {
  const { width } = writer(doc);
  doc.font('Helvetica').fontSize(10).fillColor('#555').text('Website test report');
  doc.font('Helvetica-Bold').fontSize(20).fillColor(INK).text(input.title, { width });
  doc
    .font('Helvetica')
    .fontSize(11)
    .fillColor(LINK)
    .text(input.url, { width, link: input.url, underline: true });
  doc.fillColor('#444');
  if (input.pack) {
    doc.text(
      `${input.pack.reported} of ${input.pack.size} testers have reported. What they agree on comes first, then each tester's report.`,
      { width },
    );
    return;
  }
  const r = input.reports[0]?.view;
  if (!r) return;
  const tester = [r.tester.first_name, r.tester.country].filter(Boolean).join(', ');
  doc.text(`Tested by ${tester || 'a tester'} on ${date(r.submitted_at)}`, { width });
  const setup = [r.device_used, r.browser_used].filter(Boolean).join(', ');
  if (setup) doc.text(`Device and browser: ${setup}`, { width });
}

const STILL = { w: 144, h: 81, gap: 12 };
/** Text after a link in the same line: pdfkit carries a continued line's options on unless told. */
const PLAIN = { link: null as unknown as string, underline: false };

/**
 * Page 1 (issue #51): what to fix first with a still of each problem's moment, the severity
 * counts, what worked, how each thing to check went and the SUS score, in the same words as the
 * owner's report and the share page.
 */
function summaryPage(doc: Doc, input: PdfInput, summary: ReportSummary): void {
  const w = writer(doc);
  const severities = input.reports.flatMap((r) => r.view.findings.map((f) => f.severity));
  doc.moveDown(0.6);
  doc
    .font('Helvetica')
    .fontSize(10)
    .fillColor('#444')
    .text(`Findings by severity: ${severityCounts(severities)}.`, 50, undefined, {
      width: w.width,
    });
  w.heading(SUMMARY_TEXT.fixFirst);
  if (!summary.problems.length) w.body(SUMMARY_TEXT.noProblems);
  // One column of text beside the stills when there are any (a problem without one keeps to it).
  const textX = input.stills.size ? 50 + STILL.w + STILL.gap : 50;
  summary.problems.forEach((p, i) => {
    const still = input.stills.get(i);
    const textW = w.width - (textX - 50);
    // A row must fit: a new page rather than a still cut in two.
    if (doc.y + STILL.h + 10 > doc.page.height - 50) doc.addPage();
    const top = doc.y;
    if (still) {
      try {
        doc.image(still, 50, top, { fit: [STILL.w, STILL.h] });
      } catch {
        // A frame pdfkit cannot read: the row goes on without it.
      }
    }
    doc
      .font('Helvetica-Bold')
      .fontSize(12)
      .fillColor(p.severity ? (SEVERITY_COLOURS[p.severity] ?? INK) : INK)
      .text(`${i + 1}. [${severityWord(p.severity).toUpperCase()}] `, textX, top, {
        width: textW,
        continued: true,
      })
      .fillColor(INK)
      .text(p.title);
    const thing = thingToCheckOf(summary, p);
    doc
      .font('Helvetica')
      .fontSize(10)
      .fillColor('#444')
      .text(`${testersHitText(p)}${thing ? ` · ${thing}` : ''}`, textX, undefined, {
        width: textW,
      });
    const machine = machineLine(p);
    if (machine) doc.text(machine, textX, undefined, { width: textW });
    // The proof: each moment (where its recording plays) and screenshot, as links.
    const proof = p.evidence.flatMap((e) => {
      const who = e.tester || 'tester';
      const out: Array<{ label: string; link: string }> = [];
      if (e.at_ms !== null && e.recording_url)
        out.push({
          label: `${who} at ${formatMoment(e.at_ms)}`,
          link: `${new URL(e.recording_url, input.origin).href}#t=${(e.at_ms / 1000).toFixed(1)}`,
        });
      if (e.screenshot_url)
        out.push({
          label: `${who}'s screenshot`,
          link: new URL(e.screenshot_url, input.origin).href,
        });
      return out;
    });
    const shown = proof.slice(0, 6);
    if (shown.length) {
      doc.font('Helvetica').fontSize(9).fillColor('#444');
      doc.text('Proof: ', textX, undefined, { width: textW, continued: true, ...PLAIN });
      shown.forEach((x, k) => {
        const last = k === shown.length - 1;
        doc.fillColor(LINK).text(x.label, { link: x.link, underline: true, continued: true });
        doc.fillColor('#444').text(last ? '' : ' · ', { ...PLAIN, continued: !last });
      });
    }
    doc.y = Math.max(doc.y, still ? top + STILL.h : doc.y) + 8;
    doc.x = 50;
  });
  if (summary.worked.length) {
    doc.moveDown(0.4);
    doc
      .font('Helvetica-Bold')
      .fontSize(11)
      .fillColor(INK)
      .text(`${SUMMARY_TEXT.worked}: `, 50, undefined, { width: w.width, continued: true })
      .font('Helvetica')
      .text(summary.worked.join('; '));
  }
  const answered = summary.tasks.filter((t) => t.n > 0 || t.seq_n > 0 || t.median_time_ms !== null);
  if (answered.length) {
    w.heading(SUMMARY_TEXT.tasks);
    const c = SUMMARY_TEXT.columns;
    for (const t of answered) {
      const f = taskFacts(t);
      doc.font('Helvetica-Bold').fontSize(11).fillColor(INK).text(t.text, 50, undefined, {
        width: w.width,
      });
      doc
        .font('Helvetica')
        .fontSize(10)
        .fillColor('#333')
        .text(`${c.success}: ${f.success} · ${c.time}: ${f.time} · ${c.ease}: ${f.ease}`, {
          width: w.width,
        })
        .text(f.sentence, { width: w.width });
      const change = taskBeforeAfter(t);
      if (change) doc.text(change, { width: w.width });
      doc.moveDown(0.3);
    }
  }
  if (summary.sus) {
    doc.moveDown(0.3);
    w.body(susLine(summary.sus));
  }
  if (summary.locked) {
    doc.moveDown(0.3);
    doc.font('Helvetica').fontSize(10).fillColor('#8a5a00').text(SUMMARY_TEXT.lockedShared, {
      width: w.width,
    });
  }
}

/** One tester's report: findings worst first with a link to each moment, checklist, feedback. */
function reportBody(doc: Doc, r: PdfReport['view'], links: Pick<PdfReport, 'recordingAt'>): void {
  const { width, heading, body } = writer(doc);
  if (r.locked) {
    doc
      .moveDown(0.5)
      .font('Helvetica')
      .fontSize(11)
      .fillColor('#8a5a00')
      .text('Preview: the full report is available once the work is accepted.', 50, undefined, {
        width,
      });
  }
  heading('Findings');
  if (!r.findings.length) body('No findings were written.');
  r.findings.forEach((f, i) => {
    doc
      .font('Helvetica-Bold')
      .fontSize(12)
      .fillColor(f.severity ? (SEVERITY_COLOURS[f.severity] ?? INK) : INK);
    doc
      .text(`${i + 1}. ${f.severity ? `[${f.severity.toUpperCase()}] ` : ''}`, { continued: true })
      .fillColor(INK)
      .text(f.text, { width });
    const detail = (label: string, text: string | null) => {
      if (!text) return;
      doc
        .font('Helvetica-Bold')
        .fontSize(10)
        .fillColor('#333')
        .text(`${label}: `, { continued: true, indent: 14 })
        .font('Helvetica')
        .text(text, { width: width - 14 });
    };
    detail('Steps to reproduce', f.steps);
    detail('Expected', f.expected);
    detail('What happened', f.actual);
    const at = f.at_ms !== null ? links.recordingAt(f.at_ms) : null;
    if (at && f.at_ms !== null)
      doc
        .font('Helvetica')
        .fontSize(10)
        .fillColor(LINK)
        .text(`Watch the recording at ${formatMoment(f.at_ms)}`, {
          indent: 14,
          link: at,
          underline: true,
        });
    doc.moveDown(0.6);
  });

  if (r.requirement_responses.length) {
    heading('Checklist');
    for (const x of r.requirement_responses) {
      doc.font('Helvetica-Bold').fontSize(11).fillColor(INK).text(x.requirement, { width });
      body(x.response_text);
      doc.moveDown(0.4);
    }
  }
  if (r.general_feedback) {
    heading('Overall feedback');
    body(r.general_feedback);
  }
}

/** The machine health check, in the same words as the share page and the owner's report. */
function healthSection(doc: Doc, h: HealthCheckView): void {
  const { width, heading, body } = writer(doc);
  const lines = healthCheckLines(h, date);
  heading(HEALTH_CHECK_TITLE);
  body(lines.intro);
  for (const f of lines.findings) {
    doc.moveDown(0.2);
    doc
      .font('Helvetica-Bold')
      .fontSize(11)
      .fillColor(IMPACT_COLOURS[f.impact] ?? INK)
      // The level in words as well as in colour, as in the owner's report.
      .text(`${f.impact[0].toUpperCase()}${f.impact.slice(1)}: `, { continued: true })
      .font('Helvetica')
      .fillColor(INK)
      .text(f.text, { width });
  }
  if (lines.more) body(`And ${lines.more} more in the full health check.`);
  if (lines.speed) {
    doc.moveDown(0.3);
    body(lines.speed);
  }
}

/**
 * The report as a PDF made with pdfkit: real text (selectable, found by pdftotext). Page 1 is the
 * verdict when there is one (what to fix first with a still of each moment, severity counts, task
 * metrics); then each tester's findings worst first with their steps and expected/actual and a
 * link to the recording at each moment, the checklist and feedback; the health check; and last
 * the screenshots, each fitted to its page.
 */
export async function renderReportPdf(input: PdfInput): Promise<Buffer> {
  const pictures = await Promise.all(
    input.reports.map(async (r) =>
      (
        await Promise.all(r.images.map(async (img) => ({ img, data: await embeddable(img) })))
      ).filter((p) => p.data !== null),
    ),
  );
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `${input.title}: test report`, Creator: 'HumanTest' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const { width, heading } = writer(doc);

  head(doc, input);
  if (input.summary) {
    summaryPage(doc, input, input.summary);
    doc.addPage();
  }
  input.reports.forEach((r, i) => {
    if (input.pack) {
      if (i > 0) doc.addPage();
      const v = r.view;
      const tester = [v.tester.first_name, v.tester.country].filter(Boolean).join(', ');
      heading(`Tester ${i + 1}: ${tester || 'a tester'}, ${date(v.submitted_at)}`);
      const setup = [v.device_used, v.browser_used].filter(Boolean).join(', ');
      if (setup)
        doc.font('Helvetica').fontSize(11).fillColor('#444').text(`Device and browser: ${setup}`, {
          width,
        });
    }
    reportBody(doc, r.view, r);
  });
  if (input.healthCheck) healthSection(doc, input.healthCheck);
  let n = 0;
  for (const [k, list] of pictures.entries()) {
    for (const p of list) {
      n++;
      doc.addPage();
      const label = input.pack ? `Tester ${k + 1}'s screenshot` : 'Screenshot';
      doc
        .font('Helvetica-Bold')
        .fontSize(12)
        .fillColor(INK)
        .text(p.img.name ? `${label}: ${p.img.name}` : `${label} ${n}`, { width });
      doc.moveDown(0.5);
      try {
        doc.image(p.data!, { fit: [width, doc.page.height - doc.y - 60], align: 'center' });
      } catch {
        doc
          .font('Helvetica')
          .fontSize(11)
          .fillColor(INK)
          .text('(This image could not be embedded.)', { width });
      }
    }
  }
  doc.end();
  return done;
}
