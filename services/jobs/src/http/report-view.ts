import {
  sortBySeverity,
  type ReportFindingView,
  type SharedPackView,
  type SharedReportView,
  type SubmissionView,
} from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import { sharedPaths, type PackReportSource, type ReportSource } from '../domain/share-report.js';
import { recordingUrl } from '../domain/recordings.js';
import type { FileLinkSigner } from '../providers/file-links.js';
import { toSubmissionReadView } from './views.js';

/** Where the report's files live: through the share token on shared reports, signed links otherwise. */
export interface ReportUrls {
  file(fileId: string): string;
  /** The player's URL of the submission's screen recording. */
  recording(recordingId: string): string;
  pdf: string;
}

export const sharedUrls = (token: string): ReportUrls => {
  const p = sharedPaths(token);
  return { file: p.file, recording: () => p.recording, pdf: p.pdf };
};

/** A pack's link: every tester's recording by its id. */
export const packSharedUrls = (token: string): ReportUrls => {
  const p = sharedPaths(token);
  return { file: p.file, recording: p.clip, pdf: p.pdf };
};

/** Without a live share link: signed links (they expire; a share link gives lasting ones). */
export const ownUrls = (deps: Pick<JobsDeps, 'links' | 'config'>): ReportUrls => ({
  file: (id) => deps.links.url(id),
  recording: (id) => recordingUrl(deps, id),
  pdf: '',
});

/** The structured findings and recording of "The report, next level", when the submission view has them. */
interface RichSubmissionFields {
  findings?: Array<Partial<ReportFindingView> & { text: string }> | null;
  recording?: {
    id?: string;
    url: string;
    mime_type?: string | null;
    duration_ms?: number | null;
  } | null;
}

const firstName = (name: string) => name.trim().split(/\s+/)[0] ?? '';

/**
 * The report as the share page, the shared JSON and the PDF show it, built from the submission
 * view the poster gets: nothing the poster cannot see, and no e-mail address (the tester is a
 * first name and a country). Findings come from `findings` when the view has them (severity,
 * steps, expected/actual, moment), else from the key findings; worst first.
 */
export function toReportView(
  src: ReportSource,
  links: FileLinkSigner,
  urls: ReportUrls,
  opts: { sorted?: boolean } = {},
): SharedReportView {
  return reportFromView(src, toSubmissionReadView(src.read, links, urls.recording), urls, opts);
}

/** The mapping itself, from a submission view (with or without the structured fields). */
export function reportFromView(
  src: Pick<ReportSource, 'job' | 'read' | 'testerCountry' | 'images' | 'share'> &
    Partial<Pick<ReportSource, 'healthCheck' | 'summary'>>,
  submissionView: SubmissionView,
  urls: ReportUrls,
  opts: { sorted?: boolean } = {},
): SharedReportView {
  const view = submissionView as SubmissionView & RichSubmissionFields;
  const rich = Array.isArray(view.findings) ? view.findings : null;
  const given: Array<Partial<ReportFindingView> & { text: string }> =
    rich ?? view.human_preview.key_findings_bullets.map((text) => ({ text }));
  const findings: ReportFindingView[] = given.map((f, index) => ({
    index,
    text: f.text,
    severity: f.severity ?? null,
    steps: f.steps ?? null,
    expected: f.expected ?? null,
    actual: f.actual ?? null,
    at_ms: typeof f.at_ms === 'number' ? f.at_ms : null,
  }));
  const rec = view.recording ?? null;
  return {
    job: {
      id: src.job.id,
      title: src.job.title,
      url: src.job.url,
      requirements: src.job.requirements,
    },
    submitted_at: view.submitted_at,
    locked: view.locked,
    tester: {
      first_name: firstName(src.read.submission.submittedByName),
      country: src.testerCountry ?? src.read.submission.submittedByLocation ?? null,
    },
    device_used: view.human_preview.device_used,
    browser_used: view.human_preview.browser_used,
    findings: opts.sorted === false ? findings : sortBySeverity(findings),
    requirement_responses: (view.requirement_responses ?? []).map((r) => ({
      requirement: src.job.requirements[r.requirement_index] ?? `Item ${r.requirement_index + 1}`,
      response_text: r.response_text,
    })),
    general_feedback: view.general_feedback,
    screenshots: src.images.map((f) => ({
      url: urls.file(f.id),
      name: f.originalName ?? null,
      content_type: f.contentType,
    })),
    recording: rec
      ? {
          url: rec.id ? urls.recording(rec.id) : rec.url,
          mime_type: rec.mime_type ?? null,
          duration_ms: rec.duration_ms ?? null,
        }
      : null,
    pdf_url: urls.pdf,
    expires_at: src.share?.expiresAt.toISOString() ?? '',
    health_check: src.healthCheck ?? null,
    summary: src.summary ?? null,
  };
}

/** A pack's one report: its summary, then each tester's report (each as the share page shows one). */
export function toPackView(
  src: PackReportSource,
  links: FileLinkSigner,
  urls: ReportUrls,
): SharedPackView {
  return {
    pack: { id: src.pack.id, size: src.size, reported: src.reports.length },
    job: { title: src.job.title, url: src.job.url, requirements: src.job.requirements },
    summary: src.summary,
    reports: src.reports.map((r) => {
      const {
        pdf_url: _p,
        expires_at: _e,
        health_check: _h,
        summary: _s,
        ...report
      } = toReportView(r, links, urls);
      return { ...report, submission_id: r.read.submission.id };
    }),
    pdf_url: urls.pdf,
    expires_at: src.share?.expiresAt.toISOString() ?? '',
    health_check: src.healthCheck,
  };
}
