import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { formatMoment, type SharedReportView } from '@htm/contracts';

export interface ReportImage {
  bytes: Buffer;
  contentType: string;
  name: string | null;
}

export interface PdfLinks {
  /** Absolute address of the recording at a moment (ms), or null when there is no recording to link. */
  recordingAt(ms: number): string | null;
}

const SEVERITY_COLOURS: Record<string, string> = {
  blocker: '#b00020',
  major: '#c25100',
  minor: '#6b5d00',
  cosmetic: '#44536b',
};

/** PNG and JPEG go in as they are; anything else (WebP, GIF, ...) is converted to PNG with sharp. */
async function embeddable(img: ReportImage): Promise<Buffer | null> {
  if (img.contentType === 'image/png' || img.contentType === 'image/jpeg') return img.bytes;
  try {
    return await sharp(img.bytes, { animated: false }).png().toBuffer();
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

/**
 * The report as a PDF made with pdfkit: real text (selectable, found by pdftotext), findings
 * worst first with their steps and expected/actual, a link to the recording at each finding's
 * moment, then the screenshots embedded, each fitted to the page.
 */
export async function renderReportPdf(
  r: SharedReportView,
  images: ReportImage[],
  links: PdfLinks,
): Promise<Buffer> {
  const pictures = (
    await Promise.all(images.map(async (img) => ({ img, data: await embeddable(img) })))
  ).filter((p) => p.data !== null);
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `${r.job.title}: test report`, Creator: 'HumanTest' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = doc.page.width - 100;
  const heading = (text: string) => {
    doc.moveDown(1).font('Helvetica-Bold').fontSize(14).fillColor('#1a1d23').text(text);
    doc.moveDown(0.3);
  };
  const body = (text: string) =>
    doc.font('Helvetica').fontSize(11).fillColor('#1a1d23').text(text, { width });

  doc.font('Helvetica').fontSize(10).fillColor('#555').text('Website test report');
  doc.font('Helvetica-Bold').fontSize(20).fillColor('#1a1d23').text(r.job.title, { width });
  doc
    .font('Helvetica')
    .fontSize(11)
    .fillColor('#1f5fd1')
    .text(r.job.url, { width, link: r.job.url, underline: true });
  const tester = [r.tester.first_name, r.tester.country].filter(Boolean).join(', ');
  doc
    .fillColor('#444')
    .text(`Tested by ${tester || 'a tester'} on ${date(r.submitted_at)}`, { width });
  const setup = [r.device_used, r.browser_used].filter(Boolean).join(', ');
  if (setup) doc.text(`Device and browser: ${setup}`, { width });
  if (r.locked) {
    doc
      .moveDown(0.5)
      .fillColor('#8a5a00')
      .text('Preview: the full report is available once the work is accepted.', { width });
  }

  heading('Findings');
  if (!r.findings.length) body('No findings were written.');
  r.findings.forEach((f, i) => {
    doc
      .font('Helvetica-Bold')
      .fontSize(12)
      .fillColor(f.severity ? (SEVERITY_COLOURS[f.severity] ?? '#1a1d23') : '#1a1d23');
    doc
      .text(`${i + 1}. ${f.severity ? `[${f.severity.toUpperCase()}] ` : ''}`, { continued: true })
      .fillColor('#1a1d23')
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
        .fillColor('#1f5fd1')
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
      doc.font('Helvetica-Bold').fontSize(11).fillColor('#1a1d23').text(x.requirement, { width });
      body(x.response_text);
      doc.moveDown(0.4);
    }
  }
  if (r.general_feedback) {
    heading('Overall feedback');
    body(r.general_feedback);
  }
  for (const [i, p] of pictures.entries()) {
    doc.addPage();
    doc
      .font('Helvetica-Bold')
      .fontSize(12)
      .fillColor('#1a1d23')
      .text(p.img.name ? `Screenshot: ${p.img.name}` : `Screenshot ${i + 1}`, { width });
    doc.moveDown(0.5);
    try {
      doc.image(p.data!, { fit: [width, doc.page.height - doc.y - 60], align: 'center' });
    } catch {
      body('(This image could not be embedded.)');
    }
  }
  doc.end();
  return done;
}
